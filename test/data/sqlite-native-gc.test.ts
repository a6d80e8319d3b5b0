import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * better-sqlite3 12 wraps its Database and Statement objects in node::ObjectWrap, which the addon
 * compiles in from the Node headers it is built against. From Node 24.19 that header registers an
 * environment cleanup hook per object and removes it in the destructor, where Node CHECKs that a
 * context is entered (nodejs/node#65446). A statement that the garbage collector finalizes from a
 * background GC task (no context) then aborts the whole process: "Assertion failed: (env) !=
 * nullptr" in RemoveEnvironmentCleanupHook, exit 134. In the test suite that was a vitest worker
 * dying part-way through a file on Node 24.21. A build against Node <= 24.18.1 headers (same ABI)
 * has no such hook: .ci/run builds it so on Node 24.
 *
 * This runs the pattern in a child process, with this project's better-sqlite3 on this Node: many
 * statements and databases dropped for the collector, then an idle pause in which its background
 * tasks run. A bad build dies here with a readable failure instead of killing a test worker.
 */
const script = `
const Database = require(${JSON.stringify(createRequire(import.meta.url).resolve('better-sqlite3'))});
for (let round = 0; round < 20; round++) {
  const db = new Database(':memory:');
  for (let i = 0; i < 20000; i++) db.prepare('SELECT ' + (i % 50));
  db.close();
}
setTimeout(() => console.log('survived'), 1500);
`;

describe('better-sqlite3 as built for this Node', () => {
  it('survives the garbage collector finalizing dropped statements and databases', async () => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const stop = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    clearTimeout(stop);
    const hint = `node ${process.version}: better-sqlite3 must be built against Node <= 24.18.1 headers on Node 24 (see this file)\n${output.slice(0, 2000)}`;
    expect({ code, signal, survived: output.includes('survived') }, hint).toEqual({ code: 0, signal: null, survived: true });
  });
});
