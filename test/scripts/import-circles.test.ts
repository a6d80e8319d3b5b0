import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from '../../scripts/import-circles';
import { typeScriptFiles } from '../../scripts/long-functions';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Circles among made-up files: `sources` maps a file name to its text, all in one folder. */
function circlesOf(sources: Record<string, string>): string[][] {
  const dir = path.join(root, 'made-up');
  const texts = new Map(Object.entries(sources).map(([name, text]) => [path.join(dir, name), text]));
  const graph = importGraph([...texts.keys()], (file) => texts.get(path.resolve(file)) ?? '');
  return importCircles(graph).map((circle) => circle.map((file) => path.basename(file)));
}

describe('scripts/import-circles.ts', () => {
  it.each([
    ['value imports', { 'a.ts': "import { b } from './b';", 'b.ts': "import { a } from './a';" }, [['a.ts', 'b.ts']]],
    ['type imports', { 'a.ts': "import type { B } from './b';", 'b.ts': "import { type A } from './a';" }, [['a.ts', 'b.ts']]],
    [
      're-exports',
      { 'a.ts': "export { b } from './b';", 'b.ts': "export * from './c';", 'c.ts': "import type { A } from './a.ts';" },
      [['a.ts', 'b.ts', 'c.ts']],
    ],
    ['a file importing itself', { 'a.ts': "import type { A } from './a';" }, [['a.ts']]],
    [
      'imports that go one way',
      { 'a.ts': "import { b } from './b';", 'b.ts': "import { c } from './c';", 'c.ts': "import { z } from 'zod';" },
      [],
    ],
  ])('finds circles of %s', (_label, sources, expected) => {
    expect(circlesOf(sources)).toEqual(expected);
  });
});

describe('src', () => {
  it('has no import circle, type imports included (move the shared type down, or split the file)', () => {
    const circles = importCircles(importGraph(typeScriptFiles([path.join(root, 'src')])));
    expect(circles.map((circle) => circle.map((file) => path.relative(root, file)))).toEqual([]);
  });
});
