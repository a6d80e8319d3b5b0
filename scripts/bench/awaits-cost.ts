/**
 * What the edge's promise chain costs under the bench's load, apart from the work it chains
 * (would an edge with no awaits reach GET /v1/convert ≥ 0.5x?). A synthetic measurement, not
 * the app: node:http handlers that do the same synchronous work (a CPU spin of `--work` µs) either in
 * one piece or split over `--steps` awaited async steps, as the lane's `serve` → `admit` →
 * `authenticate` → `spendRateLimit` → `resolve` → `send` chain is, and that write their answers
 * together once per event-loop turn (setImmediate), as the lane's outbox does. Each variant runs in a
 * child of its own; the variants take turns, round after round, and each row reports the median of
 * its rounds' server CPU per request. Ratios within one run only.
 *
 *   npx tsx scripts/bench/awaits-cost.ts [--work 15] [--steps 6] [--rounds 4] [--seconds 3]
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { listen, sendCpu } from './child';

const BODY = Buffer.from('{"data":{"input":{"value":"12.5","unit":"inch"},"result":{"value":"31.75","unit":"centimeter"},"category":"length"}}');

interface Variant {
  label: string;
  mode: 'sync' | 'awaits';
  work: number;
  steps: number;
}

/** Busy for `micros` µs of wall time: CPU work that cannot be optimised away. */
function spin(micros: number): number {
  const end = performance.now() + micros / 1000;
  let turns = 0;
  while (performance.now() < end) turns++;
  return turns;
}

function serve(variant: Variant): void {
  let outbox: ServerResponse[] = [];
  let scheduled = false;
  const deliver = () => {
    scheduled = false;
    const answers = outbox;
    outbox = [];
    for (const res of answers) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(BODY.length) });
      res.end(BODY);
    }
  };
  const post = (res: ServerResponse) => {
    outbox.push(res);
    if (!scheduled) {
      scheduled = true;
      setImmediate(deliver);
    }
  };
  const piece = variant.work / variant.steps;
  const step = async () => spin(piece);
  const server = createServer((_req, res) => {
    if (variant.mode === 'sync') {
      for (let i = 0; i < variant.steps; i++) spin(piece);
      post(res);
      return;
    }
    void (async () => {
      for (let i = 0; i < variant.steps; i++) await step();
      post(res);
    })();
  });
  void listen([server], server).then((port) => process.send!({ port }));
  process.on('message', (message) => {
    if (message === 'cpu') sendCpu();
    if (message === 'stop') process.exit(0);
  });
  // The parent died without saying stop: do not linger holding the port.
  process.on('disconnect', () => process.exit(0));
}

const ask = <T>(child: ChildProcess, message: string | undefined, key: string) =>
  new Promise<T>((resolve) => {
    const listener = (reply: Record<string, T>) => {
      if (!(key in reply)) return;
      child.off('message', listener);
      resolve(reply[key]!);
    };
    child.on('message', listener);
    if (message !== undefined) child.send(message);
  });

const load = (port: number, seconds: number) =>
  new Promise<autocannon.Result>((resolve, reject) =>
    autocannon({ url: `http://127.0.0.1:${port}/`, connections: 10, duration: seconds }, (error: unknown, result) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result),
    ),
  );

async function measure(variant: Variant, seconds: number): Promise<{ rps: number; cpu: number; non2xx: number }> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve', JSON.stringify(variant)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const port = await ask<number>(child, undefined, 'port');
    await load(port, 1);
    const before = await ask<number>(child, 'cpu', 'cpu');
    const result = await load(port, seconds);
    const after = await ask<number>(child, 'cpu', 'cpu');
    return { rps: result.requests.total / seconds, cpu: (after - before) / result.requests.total, non2xx: result.non2xx };
  } finally {
    child.send('stop');
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      work: { type: 'string', default: '15' },
      steps: { type: 'string', default: '6' },
      rounds: { type: 'string', default: '4' },
      seconds: { type: 'string', default: '3' },
    },
  });
  if (values.serve !== undefined) return serve(JSON.parse(values.serve) as Variant);
  const work = Number(values.work);
  const steps = Number(values.steps);
  const rounds = Number(values.rounds);
  const seconds = Number(values.seconds);
  const variants: Variant[] = [
    { label: 'bare: answer only', mode: 'sync', work: 0, steps: 1 },
    { label: `${steps} awaits, no work`, mode: 'awaits', work: 0, steps },
    { label: `${work} µs of work, synchronous`, mode: 'sync', work, steps },
    { label: `${work} µs of work over ${steps} awaits`, mode: 'awaits', work, steps },
  ];
  const results = variants.map(() => ({ rps: [] as number[], cpu: [] as number[], non2xx: 0 }));
  for (let round = 1; round <= rounds; round++) {
    console.error(`round ${round} of ${rounds}…`);
    for (const [i, variant] of variants.entries()) {
      const r = await measure(variant, seconds);
      results[i]!.rps.push(r.rps);
      results[i]!.cpu.push(r.cpu);
      results[i]!.non2xx += r.non2xx;
    }
  }
  const bare = median(results[0]!.cpu);
  console.log(`node ${process.version} · ${new Date().toISOString()} · 10 connections · ${rounds} rounds of ${seconds} s per variant, medians`);
  console.log('| variant | req/s | server CPU µs/req | CPU vs bare | non-2xx |');
  console.log('|---|--:|--:|--:|--:|');
  for (const [i, variant] of variants.entries()) {
    const cpu = median(results[i]!.cpu);
    console.log(`| ${variant.label} | ${Math.round(median(results[i]!.rps)).toLocaleString('en')} | ${cpu.toFixed(1)} | ${(bare / cpu).toFixed(2)}x | ${results[i]!.non2xx} |`);
  }
}

await main();
