import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The layer rule of eslint.config.js bites: ESLint's own API lints a small file placed (in memory)
 * in a layer's folder and must report the upward import, and must let the downward one pass.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: root });

async function layerErrors(filePath: string, from: string): Promise<string[]> {
  const code = `import { x } from '${from}';\nexport const y = x;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('imports go one way (eslint.config.js)', () => {
  it.each([
    ['src/domain/probe.ts', '../http/x'],
    ['src/domain/units/probe.ts', '../../services/x'],
    ['src/domain/probe.ts', '../config'],
    ['src/services/probe.ts', '../data/store'],
    ['src/services/probe.ts', '../http/rate-limit'],
    ['src/services/probe.ts', '../metrics'],
    ['src/graphql/probe.ts', '../http/rate-limit-directive'],
    ['src/http/probe.ts', '../app'],
    ['src/http/graphiql/probe.ts', '../../main'],
    ['src/http/probe.ts', '../data/sqlite-store'],
    ['src/data/probe.ts', '../http/client-error'],
    ['src/config.ts', './http/x'],
  ])('%s may not import %s', async (file, from) => {
    const errors = await layerErrors(file, from);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/Imports go one way/);
  });

  it.each([
    ['src/domain/units/probe.ts', '../errors'],
    ['src/services/probe.ts', '../domain/errors'],
    ['src/services/probe.ts', '../config'],
    ['src/data/probe.ts', '../services/account-store'],
    ['src/data/rates/probe.ts', './http-get'],
    ['src/graphql/probe.ts', '../services/conversions'],
    ['src/http/probe.ts', '../graphql/context'],
    ['src/pages/probe.ts', '../http/errors'],
    ['src/app.ts', './data/open-store'],
    ['src/domain/probe.ts', 'decimal.js'],
  ])('%s may import %s', async (file, from) => {
    expect(await layerErrors(file, from)).toEqual([]);
  });
});
