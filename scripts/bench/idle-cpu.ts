/**
 * `npm run bench:idle`: the CPU a started server spends with nothing to do. Each build given
 * (`--main`, default dist/main.js: build it with `npm run build`) is started as `npm start` starts
 * it, with the whole ECB history imported (RATES_FILE, default ../shared/ecb/eurofxref-hist.zip),
 * on each configuration (`--configs sqlite,postgres+redis`: a fresh DATA_DIR, or a database made
 * for the run on TEST_DATABASE_URL, and TEST_REDIS_URL's server on database 13, since the rates
 * cache keeps a fixed prefix); every server runs at once, so builds are compared on the same
 * machine state. After `--settle` seconds from its start line, its utime + stime are read from
 * /proc/PID/stat at the start and end of a `--seconds` window (default 60): the share of one core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configOf, connectConfig } from './configs';

const DEFAULT_RATES_FILE = fileURLToPath(new URL('../../../shared/ecb/eurofxref-hist.zip', import.meta.url));
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** utime + stime of a process, in seconds (fields 14 and 15 of /proc/PID/stat, after the command's parentheses). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Starts one server and resolves once it logged its start line. */
function startServer(main: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--max-semi-space-size=16', '--enable-source-maps', main], {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      if (/"port":\d+/.test(seen)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`${main} exited (${code}) before listening:\n${seen.slice(-2000)}`)));
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      main: { type: 'string', default: 'dist/main.js' },
      configs: { type: 'string', default: 'sqlite' },
      seconds: { type: 'string', default: '60' },
      settle: { type: 'string', default: '15' },
      'rates-file': { type: 'string', default: DEFAULT_RATES_FILE },
    },
  });
  const seconds = Number(values.seconds);
  const settle = Number(values.settle);
  const mains = values.main.split(',').map((file) => path.resolve(file));
  for (const file of mains) if (!fs.existsSync(file)) throw new Error(`${file} does not exist: npm run build first`);
  const configs = values.configs.split(',').map((name) => configOf(name.trim()));
  const runs: { label: string; child?: ChildProcess; drop(): Promise<void>; dir: string }[] = [];
  try {
    const started: Promise<void>[] = [];
    for (const config of configs) {
      for (const file of mains) {
        const { connection, drop } = await connectConfig(config, process.env);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'idle-cpu-'));
        const redis = connection.redisUrl ? Object.assign(new URL(connection.redisUrl), { pathname: '/13' }).toString() : undefined;
        const env: NodeJS.ProcessEnv = {
          PORT: '0',
          HOST: '127.0.0.1',
          DATA_DIR: dir,
          RATES_FILE: values['rates-file'],
          ...(connection.databaseUrl ? { DATABASE_URL: connection.databaseUrl } : {}),
          ...(redis ? { REDIS_URL: redis } : {}),
        };
        const run: (typeof runs)[number] = { label: `${config.name} ${file}`, drop, dir };
        runs.push(run);
        started.push(
          startServer(file, env).then((child) => {
            run.child = child;
          }),
        );
      }
    }
    await Promise.all(started);
    await new Promise((resolve) => setTimeout(resolve, settle * 1000));
    const before = runs.map((run) => cpuSeconds(run.child!.pid!));
    const t0 = process.hrtime.bigint();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
    const after = runs.map((run) => cpuSeconds(run.child!.pid!));
    console.log(`idle CPU over ${elapsed.toFixed(1)} s (utime+stime from /proc/PID/stat, ${settle} s after the start line)`);
    runs.forEach((run, i) => {
      const used = after[i]! - before[i]!;
      console.log(`${run.label}: ${used.toFixed(2)} s CPU, ${((100 * used) / elapsed).toFixed(2)} % of a core`);
    });
  } finally {
    for (const run of runs) run.child?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const run of runs) {
      await run.drop().catch(() => undefined);
      fs.rmSync(run.dir, { recursive: true, force: true });
    }
  }
}

await main();
