import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

/**
 * An addon that wraps its objects in node::ObjectWrap, compiled against Node 24.19+ headers, aborts
 * the whole process when the garbage collector finalizes a dropped statement from a background GC
 * task: "Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook, exit 134
 * (nodejs/node#65446). better-sqlite3 12 was such an addon; 13 is a Node-API build without it.
 *
 * This runs the pattern in a child process, with this project's better-sqlite3 on this Node: many
 * statements and databases dropped for the collector, then an idle pause in which its background
 * tasks run. A binding that aborts fails here with a readable message instead of killing a test worker.
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
    // Only a hung child is cut: on a loaded machine the collection loop alone has taken 17 s.
    const stop = setTimeout(() => child.kill('SIGKILL'), 150_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(stop);
    const hint = `node ${process.version}: better-sqlite3 aborted when the collector finalized its objects (see this file)\n${output.slice(0, 2000)}`;
    expect({ code, signal, survived: output.includes('survived') }, hint).toEqual({ code: 0, signal: null, survived: true });
  });
});
