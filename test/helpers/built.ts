import path from 'node:path';
import { inject } from 'vitest';

/** The bundles of this test run (test/setup/built-entries.ts): what `npm start` and the CLI run. */
export type BuiltEntry = 'main' | 'admin' | 'mcp-stdio' | 'quota-worker';

export function built(entry: BuiltEntry): string {
  return path.join(inject('builtDir'), `${entry}.js`);
}
