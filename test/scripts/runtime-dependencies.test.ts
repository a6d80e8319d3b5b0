import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What runs in production installs with `npm ci --omit=dev`: every package the server (src/) and
 * the operator's commands (`npm run admin`, `npm run mcp`) import or resolve is a dependency, never
 * only a devDependency (cldr-units-full, decimal.js and the like are the tests' oracles).
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const PRODUCTION_ENTRIES = ['scripts/admin.ts', 'scripts/mcp-stdio.ts'];
const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bresolve\(\s*)'([^'.][^']*)'/g;

function sourceFiles(directory: string): string[] {
  return readdirSync(path.join(root, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a Node built-in. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function packagesUsedBy(files: readonly string[]): Map<string, string> {
  const used = new Map<string, string>();
  for (const file of files) {
    for (const [, specifier] of readFileSync(path.join(root, file), 'utf8').matchAll(SPECIFIER)) {
      const name = packageOf(specifier!);
      if (name !== undefined && !used.has(name)) used.set(name, file);
    }
  }
  return used;
}

describe('production code uses dependencies only', () => {
  const used = packagesUsedBy([...sourceFiles('src'), ...PRODUCTION_ENTRIES]);

  it('finds the packages of imports, dynamic imports and resolved paths', () => {
    expect(packageOf('@modelcontextprotocol/server/stdio')).toBe('@modelcontextprotocol/server');
    expect(packageOf('redoc/bundles/redoc.standalone.js')).toBe('redoc');
    expect(packageOf('node:fs')).toBeUndefined();
    expect(used.has('graphql')).toBe(true);
    expect(used.has('@graphql-yoga/render-graphiql')).toBe(true); // a dynamic import
    expect(used.size).toBeGreaterThan(20);
  });

  it('every package src/ and the operator commands use is in dependencies', () => {
    const missing = [...used].filter(([name]) => manifest.dependencies[name] === undefined).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it('the unit names ship as a generated module: cldr-units-full is a devDependency only', () => {
    expect(manifest.devDependencies['cldr-units-full']).toBeDefined();
    expect(manifest.dependencies['cldr-units-full']).toBeUndefined();
    expect(used.has('cldr-units-full')).toBe(false);
  });
});
