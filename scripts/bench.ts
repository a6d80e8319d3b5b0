/**
 * `npm run bench`: throughput and latency of the API against a plain node:http handler that sends
 * the same bytes, in one run, on loopback. Options: --duration 10 --warmup 2 --connections 10
 * --pipelining 1 --only baseline,rest,graphql,units --json --profile <dir> (CPU-profiles the servers).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measure, type LoadOptions, type Measurement } from './bench/load';
import { formatReport, problems, runInfo } from './bench/report';
import { benchTargets, verifyTarget, type ServersReady } from './bench/targets';

const USAGE = 'usage: npm run bench -- [--duration 10] [--warmup 2] [--connections 10] [--pipelining 1] [--only ids] [--json] [--profile dir]';

/** The command line, checked before anything starts: a typo must not cost a minute of load. */
function readArgs() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      pipelining: { type: 'string', default: '1' },
      only: { type: 'string' },
      profile: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const count = (name: 'duration' | 'warmup' | 'connections' | 'pipelining', min: number): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got ${values[name]})`);
    return n;
  };
  const options: LoadOptions = {
    duration: count('duration', 1),
    warmup: count('warmup', 0),
    connections: count('connections', 1),
    pipelining: count('pipelining', 1),
  };
  return { ...values, options };
}

const argv = process.argv.slice(2).join(' ');
const command = process.env.npm_lifecycle_event === 'bench' ? `npm run bench${argv ? ` -- ${argv}` : ''}` : `tsx scripts/bench.ts ${argv}`.trim();
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Starts servers.ts under tsx in a child process and waits for its ports and key. */
function startServers(profileDir: string | undefined): Promise<{ child: ChildProcess; ready: ServersReady }> {
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = fork(fileURLToPath(new URL('./bench/servers.ts', import.meta.url)), [], {
    execArgv: ['--import', import.meta.resolve('tsx'), ...profile],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server process exited (code ${code}) before it was ready`)));
    child.once('message', (message: { ready?: ServersReady; error?: string }) => {
      if (message.ready) resolve({ child, ready: message.ready });
      else reject(new Error(`the server process failed to start:\n${message.error}`));
    });
  });
}

function stopServers(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.send('stop');
  });
}

async function main(): Promise<number> {
  let args: ReturnType<typeof readArgs>;
  try {
    args = readArgs();
  } catch (error) {
    log(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { options } = args;
  const info = runInfo(command, options);
  const { child, ready } = await startServers(args.profile);
  const rows: Measurement[] = [];
  try {
    const wanted = args.only?.split(',').map((id) => id.trim());
    const targets = benchTargets(ready).filter((t) => !wanted || wanted.includes(t.id));
    if (targets.length === 0) throw new Error(`--only matched no target (baseline, rest, graphql, units)`);
    // Every target must give its right answer before any load: a fast 401 is not a result.
    const expected = new Map<string, string>();
    for (const target of targets) expected.set(target.id, await verifyTarget(target));
    // Sequential, never parallel: with 2 cores, two loads at once would split the server's CPU.
    for (const target of targets) {
      log(`${target.label}: ${options.warmup} s warm-up, ${options.duration} s measured…`);
      rows.push(await measure(target, expected.get(target.id)!, options));
    }
  } finally {
    await stopServers(child);
  }
  const failed = problems(rows);
  if (args.json) process.stdout.write(`${JSON.stringify({ ...info, results: rows, problems: failed }, null, 2)}\n`);
  else process.stdout.write(`${formatReport(info, rows)}\n`);
  for (const line of failed) log(`FAILED ${line}`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
