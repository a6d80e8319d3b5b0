import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { longFunctions, typeScriptFiles } from '../../scripts/long-functions';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A function of `lines` lines in all, written as `shape` declares it. */
const functionOf = (lines: number, shape: (body: string) => string) =>
  shape(Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n'));

describe('scripts/long-functions.ts', () => {
  it.each([
    ['a declaration', (body: string) => `function long() {\n${body}\n}\n`, 1],
    ['an arrow assigned to a name', (body: string) => `const long = () => {\n${body}\n};\n`, 1],
    ['a method', (body: string) => `class C {\n  long() {\n${body}\n  }\n}\n`, 2],
  ])('finds %s of 81 lines and not one of 80', (_, shape, line) => {
    expect(longFunctions('x.ts', functionOf(81, shape), 80)).toEqual([{ file: 'x.ts', name: 'long', line, lines: 81 }]);
    expect(longFunctions('x.ts', functionOf(80, shape), 80)).toEqual([]);
  });

  it('measures a nested function on its own, as well as inside the one that holds it', () => {
    const inner = functionOf(81, (body) => `  const inner = () => {\n${body}\n  };`);
    const found = longFunctions('x.ts', `function outer() {\n${inner}\n}\n`, 80);
    expect(found.map((f) => [f.name, f.lines])).toEqual([
      ['outer', 83],
      ['inner', 81],
    ]);
  });
});

describe('the source (src)', () => {
  it('has no function over 80 lines (split a longer one into named steps)', () => {
    const found = typeScriptFiles([path.join(root, 'src')]).flatMap((file) =>
      longFunctions(path.relative(root, file), readFileSync(file, 'utf8'), 80),
    );
    expect(found).toEqual([]);
  });
});
