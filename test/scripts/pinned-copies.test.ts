import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Where the code copies a library's internals, that library is pinned to one exact version, the
 * copy names that version and the parity test that guards it, and the test exists: an upgrade is
 * then a deliberate edit of package.json, the comment and the copy, checked by that test.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const COPIES: ReadonlyArray<{ library: string; copy: string; guard: string }> = [
  { library: 'graphql-yoga', copy: 'src/http/graphql/graphql-http.ts', guard: 'test/http/graphql-post.test.ts' },
  { library: 'graphql', copy: 'src/http/rest/rest-input.ts', guard: 'test/http/rest-input.test.ts' },
  { library: '@pothos/core', copy: 'src/graphql/direct-resolver.ts', guard: 'test/graphql/direct-resolver.test.ts' },
  { library: '@pothos/plugin-zod', copy: 'src/graphql/direct-resolver.ts', guard: 'test/graphql/direct-resolver.test.ts' },
  { library: 'sofa-api', copy: 'src/graphql/serialize.ts', guard: 'test/http/rest-executions.test.ts' },
  { library: '@graphql-yoga/plugin-sofa', copy: 'src/graphql/serialize.ts', guard: 'test/http/rest-executions.test.ts' },
  {
    library: 'graphql-rate-limit-directive',
    copy: 'src/http/limits/rate-limit-directive.ts',
    guard: 'test/http/rate-limit-directive.test.ts',
  },
  { library: '@graphql-yoga/render-graphiql', copy: 'src/http/graphiql/bundle.ts', guard: 'test/e2e/graphiql-browser.test.ts' },
];

describe('libraries whose internals are copied', () => {
  const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { version: string; dependencies?: Record<string, string> }>;
  };

  it.each(COPIES.map((c) => [c.library, c.copy, c] as const))(
    '%s (copied in %s): pinned to the installed version, named with its guard',
    (library, copy, { guard }) => {
      const installed = (JSON.parse(read(`node_modules/${library}/package.json`)) as { version: string }).version;
      expect(manifest.dependencies[library], 'an exact version in package.json, not a range').toBe(installed);
      expect(lock.packages['']!.dependencies![library]).toBe(installed);
      expect(lock.packages[`node_modules/${library}`]!.version).toBe(installed);
      expect(read(copy)).toContain(`${library} ${installed}`);
      expect(read(copy)).toContain(guard);
      expect(existsSync(path.join(root, guard))).toBe(true);
    },
  );
});
