import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * The tests that start the server, the operator CLI or the MCP stdio proxy as processes start the
 * bundles `npm start` runs, built once per test run into `.test-build/<run>/` (beside `dist/`, so
 * packages resolve from the project's node_modules): `main.js`, `admin.js`, `mcp-stdio.js` and the
 * quota suite's worker, `quota-worker.js`. The
 * esbuild flags are the `build` script's own, read from package.json, so what runs is what ships.
 * A second project of the run reuses the first one's build; the last one to finish removes it.
 * Those processes share a V8 compile cache in the same folder (NODE_COMPILE_CACHE), so each start
 * after the first skips compiling the bundle and its packages.
 */
const ENTRIES = {
  main: 'src/main.ts',
  admin: 'scripts/admin.ts',
  'mcp-stdio': 'scripts/mcp-stdio.ts',
  // The store suite's own separate process, spending quota beside the test's.
  'quota-worker': 'test/data/quota-worker.ts',
} as const;

interface SharedBuild {
  dir: string;
  users: number;
}
const shared = globalThis as { measurementTestBuild?: SharedBuild };

export function buildEntries(root: string): string {
  const dir = path.join(root, '.test-build', `${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { build: string } }).scripts.build;
  const flags = script
    .split(/\s+/)
    .slice(2)
    .filter((flag) => flag.startsWith('--') && !flag.startsWith('--outfile='));
  const esbuild = path.join(root, 'node_modules', '.bin', 'esbuild');
  for (const [name, entry] of Object.entries(ENTRIES)) {
    execFileSync(esbuild, [entry, ...flags, `--outfile=${path.join(dir, `${name}.js`)}`], { cwd: root, stdio: 'inherit' });
  }
  return dir;
}

export default function setup(project: TestProject): () => void {
  const root = project.config.root;
  shared.measurementTestBuild ??= { dir: buildEntries(root), users: 0 };
  const build = shared.measurementTestBuild;
  build.users += 1;
  project.provide('builtDir', build.dir);
  // Read by every Node process started after this point that inherits the environment.
  process.env.NODE_COMPILE_CACHE ??= path.join(build.dir, 'compile-cache');
  return () => {
    build.users -= 1;
    if (build.users === 0) {
      rmSync(build.dir, { recursive: true, force: true });
      shared.measurementTestBuild = undefined;
    }
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    builtDir: string;
  }
}
