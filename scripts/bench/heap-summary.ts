/**
 * `npm run bench:heap -- <file.heapsnapshot> [--strings 10]`: what a heap snapshot is made of
 * (self size per node type) and its largest strings, as Markdown. Take the snapshot with
 * `npm run bench -- --only rss --heap-snapshot <file>` (the server child after the ECB history
 * was loaded) or `node --heapsnapshot-signal=SIGUSR2` on a running server.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { formatHeapSummary, summariseHeap, type HeapSnapshot } from './heapsnapshot';

const USAGE = 'usage: npm run bench:heap -- <file.heapsnapshot> [--strings 10]';

try {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { strings: { type: 'string', default: '10' } } });
  const largest = Number(values.strings);
  if (positionals.length !== 1 || !Number.isInteger(largest) || largest < 0) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = 2;
  } else {
    const snap = JSON.parse(fs.readFileSync(positionals[0]!, 'utf8')) as HeapSnapshot;
    process.stdout.write(`${formatHeapSummary(summariseHeap(snap, largest))}\n`);
  }
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
  process.exitCode = 1;
}
