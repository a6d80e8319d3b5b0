/**
 * `npm run bench`: throughput and latency of the API against a plain node:http handler that sends
 * the same bytes and a hand-written Express peer, in one run, on loopback, plus the server's memory
 * with the whole ECB history loaded. Options: --duration 10 --rounds 5 --warmup 2 --connections 10
 * --pipelining 1 --only baseline,answer,express,rest,graphql,units,batch,rss --json --profile <dir>
 * (graphql-yoga-jit, the same GraphQL request answered by Yoga on graphql-jit, runs only when --only names it)
 * --rate N (each target also measured at N requests a second offered, paced across the connections: its CPU per
 * request there is the figure to judge, as production runs below saturation)
 * (CPU-profiles the servers) --rates-file <ECB history> (default ../shared/ecb/eurofxref-hist.zip)
 * --heap-snapshot <file> (the server child's heap once the history is loaded; see bench:heap).
 * --tsx runs the server child under tsx instead of compiled (as --profile does).
 * --database postgres --redis: the app on PostgreSQL (TEST_DATABASE_URL, a database made for the run
 * and dropped after it) and Redis (TEST_REDIS_URL); --configs sqlite,postgres+redis measures several
 * configurations in one run, one app child each, the targets taking turns (scripts/bench/configs.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { batchAccountsFor } from './bench/batch';
import { CONFIG_NAMES, configsFrom, connectConfig, type BenchConfig } from './bench/configs';
import { formatComparison, formatYogaJitComparison } from './bench/compare';
import { loadOn, type LoadOptions, type Measurement } from './bench/load';
import type { MemoryFigures, MemoryReport } from './bench/memory';
import { formatReport, problems, ratios, runInfo } from './bench/report';
import {
  benchTargets,
  NAMED_ONLY,
  TARGET_IDS,
  verifyTarget,
  type AppServersReady,
  type BareServersOptions,
  type BareServersReady,
  type ServersOptions,
  type ServersReady,
  type Target,
} from './bench/targets';

const IDS = [...TARGET_IDS, 'rss'];
const USAGE = `usage: npm run bench -- [--duration 10] [--rounds 5] [--warmup 2] [--connections 10] [--pipelining 1] [--only ${IDS.join(',')}] [--json] [--profile dir] [--rates-file file] [--heap-snapshot file] [--tsx] [--database sqlite|postgres] [--redis] [--configs ${CONFIG_NAMES.join('|')},…] (postgres: TEST_DATABASE_URL, redis: TEST_REDIS_URL)`;
const DEFAULT_RATES_FILE = fileURLToPath(new URL('../../shared/ecb/eurofxref-hist.zip', import.meta.url));
/** The publishers' recorded feeds the currency-two-source row imports (NBP, NBU). */
const DEFAULT_FEEDS_DIR = fileURLToPath(new URL('../../shared/feeds', import.meta.url));

/** The command line, checked before anything starts: a typo must not cost a minute of load. */
function readArgs() {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '5' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
      pipelining: { type: 'string', default: '1' },
      rate: { type: 'string' },
      only: { type: 'string' },
      profile: { type: 'string' },
      'rates-file': { type: 'string' },
      'heap-snapshot': { type: 'string' },
      json: { type: 'boolean', default: false },
      tsx: { type: 'boolean', default: false },
      database: { type: 'string' },
      redis: { type: 'boolean', default: false },
      configs: { type: 'string' },
    },
  });
  const count = (name: 'duration' | 'rounds' | 'warmup' | 'connections' | 'pipelining', min: number): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min} (got ${values[name]})`);
    return n;
  };
  const options: LoadOptions = {
    duration: count('duration', 1),
    rounds: count('rounds', 1),
    warmup: count('warmup', 0),
    connections: count('connections', 1),
    pipelining: count('pipelining', 1),
  };
  const rate = values.rate === undefined ? undefined : Number(values.rate);
  if (rate !== undefined && (!Number.isInteger(rate) || rate < 1))
    throw new Error(`--rate must be an integer >= 1 requests a second (got ${values.rate})`);
  if (options.duration % options.rounds !== 0)
    throw new Error(`--duration (${options.duration}) must be a multiple of --rounds (${options.rounds}): whole seconds per slice`);
  const only = values.only?.split(',').map((id) => id.trim());
  const unknown = only?.filter((id) => !IDS.includes(id));
  if (unknown?.length) throw new Error(`--only: unknown id ${unknown.join(', ')} (ids: ${IDS.join(', ')})`);
  const wants = (id: string) => (only ? only.includes(id) : !NAMED_ONLY.includes(id));
  const configs = configsFrom(values, process.env);
  return { ...values, options, rate, wants, configs };
}

/** The ECB history for the memory figures and the series row, or why there is none. */
function ratesFileFor(wanted: boolean, given: string | undefined): Pick<ServersOptions, 'ratesFile' | 'memorySkipped'> {
  if (!wanted) return { memorySkipped: 'neither rss nor a series row in --only' };
  const file = given ?? DEFAULT_RATES_FILE;
  if (!fs.existsSync(file)) return { memorySkipped: `${file} is absent: no ECB history to load (give one with --rates-file)` };
  return { ratesFile: file };
}

const argv = process.argv.slice(2).join(' ');
const command =
  process.env.npm_lifecycle_event === 'bench' ? `npm run bench${argv ? ` -- ${argv}` : ''}` : `tsx scripts/bench.ts ${argv}`.trim();
const log = (line: string) => process.stderr.write(`${line}\n`);

/** The app's child (servers.ts) and the comparison servers' child (bare-servers.ts). */
const CHILDREN = {
  app: {
    source: fileURLToPath(new URL('./bench/servers.ts', import.meta.url)),
    compiled: fileURLToPath(new URL('../dist/bench/servers.js', import.meta.url)),
  },
  bare: {
    source: fileURLToPath(new URL('./bench/bare-servers.ts', import.meta.url)),
    compiled: fileURLToPath(new URL('../dist/bench/bare-servers.js', import.meta.url)),
  },
};
type ChildName = keyof typeof CHILDREN;

/**
 * A child compiled as `npm run build` compiles src/main.ts (esbuild bundle, packages external, into
 * the ignored dist/, so that its external packages resolve from node_modules): the app's child then
 * runs what `npm start` runs, plain node, no transpiler loaded (tsx alone adds about 40 MiB of RSS
 * and its own CPU). Under --profile or --tsx the app's child stays under tsx, whose output keeps
 * one file per module, so the profile summary can still group samples by src/ file; the
 * comparison servers are always compiled.
 */
async function childEntry(name: ChildName, compiled: boolean): Promise<{ file: string; execArgv: string[] }> {
  const { source, compiled: outfile } = CHILDREN[name];
  if (!compiled) return { file: source, execArgv: ['--import', import.meta.resolve('tsx')] };
  await build({
    entryPoints: [source],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
    outfile,
  });
  return { file: outfile, execArgv: ['--enable-source-maps'] };
}

/** Starts a child and waits for what it reports once it listens. */
async function startChild<Ready>(
  name: ChildName,
  compiled: boolean,
  argument: object,
  extraArgv: string[] = [],
): Promise<{ child: ChildProcess; ready: Ready }> {
  const entry = await childEntry(name, compiled);
  // --expose-gc: the memory figures are taken after a full GC, not whenever V8 last collected.
  // NODE_ENV as `npm start` sets it, unless the caller set one.
  const child = fork(entry.file, [JSON.stringify(argument)], {
    execArgv: [...entry.execArgv, '--expose-gc', ...extraArgv],
    env: { ...process.env, NODE_ENV: process.env['NODE_ENV'] ?? 'production' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${name} server process exited (code ${code}) before it was ready`)));
    child.once('message', (message: { ready?: Ready; error?: string }) => {
      if (message.ready) resolve({ child, ready: message.ready });
      else reject(new Error(`the ${name} server process failed to start:\n${message.error}`));
    });
  });
}

/**
 * The app's children first, one per configuration (the first one's answer to GET /v1/convert is
 * what the bare handlers repeat), then the comparison servers' child. Only the apps' children are
 * CPU-profiled (--profile). What was started is stopped again if a later child fails.
 */
async function startServers(profileDir: string | undefined, compiled: boolean, perConfig: readonly ServersOptions[]) {
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const apps: { child: ChildProcess; ready: AppServersReady }[] = [];
  try {
    for (const options of perConfig) apps.push(await startChild<AppServersReady>('app', compiled, options, profile));
    const { convertBody, contentType, answerHeaders } = apps[0]!.ready;
    const bareOptions: BareServersOptions = { convertBody, contentType, answerHeaders };
    const bare = await startChild<BareServersReady>('bare', true, bareOptions);
    return { apps, bare };
  } catch (error) {
    await Promise.all(apps.map((app) => stopServers(app.child)));
    throw error;
  }
}

/**
 * Every configuration's targets: the comparison rows once, with the first configuration; the app's
 * rows for each. With several configurations an app row's id and label name its configuration
 * (`rest@postgres+redis`); `--only` still takes the plain ids.
 */
function targetsOf(
  configs: readonly BenchConfig[],
  apps: readonly { child: ChildProcess; ready: AppServersReady }[],
  bare: { child: ChildProcess; ready: BareServersReady },
  wants: (id: string) => boolean,
) {
  const several = configs.length > 1;
  return configs.flatMap((config, i) =>
    benchTargets({ ...apps[i]!.ready, ...bare.ready } satisfies ServersReady)
      .filter((t) => wants(t.id) && (i === 0 || t.kind === 'app'))
      .map((t) => {
        if (t.kind !== 'app') return { target: t, child: bare.child };
        const target: Target = several ? { ...t, id: `${t.id}@${config.name}`, label: `${t.label} [${config.name}]` } : t;
        return { target, child: apps[i]!.child };
      }),
  );
}

/** The child's memory once every row ran. */
function askMemory(child: ChildProcess): Promise<MemoryFigures> {
  return new Promise((resolve) => {
    const onMessage = (message: { memory?: MemoryFigures }) => {
      if (!message.memory) return;
      child.off('message', onMessage);
      resolve(message.memory);
    };
    child.on('message', onMessage);
    child.send('memory');
  });
}

/** The child's CPU time so far (µs): asked just before and after each measured load. */
function askCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (message: { cpu?: number }) => {
      if (message.cpu === undefined) return;
      child.off('message', onMessage);
      resolve(message.cpu);
    };
    child.on('message', onMessage);
    child.send('cpu');
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
  const { options, wants } = args;
  const compiled = !args.tsx && !args.profile;
  const { configs } = args;
  const info = runInfo(
    command,
    options,
    compiled ? 'compiled (esbuild bundle, plain node, as npm start)' : 'under tsx (transpiled at run time)',
    configs.map((c) => c.name),
  );
  const base: ServersOptions = {
    batchAccounts: wants('batch') ? batchAccountsFor(options.warmup, options.duration) : 0,
    yogaJit: wants('graphql-yoga-jit'),
    ...ratesFileFor(
      wants('rss') || wants('series') || wants('series-gzip') || wants('currency') || wants('currency-two-source'),
      args['rates-file'],
    ),
    ...(wants('currency-two-source') ? { feedsDir: DEFAULT_FEEDS_DIR } : {}),
    ...(args['heap-snapshot'] ? { heapSnapshot: path.resolve(args['heap-snapshot']) } : {}),
  };
  if (base.ratesFile) log(`loading the ECB history ${base.ratesFile} in the app's server child…`);
  const connected: Awaited<ReturnType<typeof connectConfig>>[] = [];
  const rows: Measurement[] = [];
  let memory: MemoryReport;
  try {
    for (const config of configs) connected.push(await connectConfig(config, process.env));
    // The memory figures (the ECB history, a heap snapshot) are the first configuration's only.
    const perConfig = connected.map(
      ({ connection }, i): ServersOptions =>
        i === 0
          ? { ...base, connection }
          : {
              batchAccounts: base.batchAccounts,
              yogaJit: base.yogaJit,
              memorySkipped: base.memorySkipped ?? 'measured for the first configuration only',
              connection,
            },
    );
    const { apps, bare } = await startServers(args.profile, compiled, perConfig);
    memory = apps[0]!.ready.memory;
    try {
      const targets = targetsOf(configs, apps, bare, wants);
      if ((wants('series') || wants('series-gzip')) && !targets.some(({ target }) => target.id.startsWith('series')))
        log(`the series rows are skipped: ${base.memorySkipped ?? 'no ECB history loaded'}`);
      // Every target must give its right answer before any load: a fast 401 is not a result.
      const expected = new Map<string, string>();
      for (const { target } of targets) expected.set(target.id, await verifyTarget(target));
      // Sequential, never parallel: with 2 cores, two loads at once would split the server's CPU. The
      // targets take turns, one slice each per round, so every row is measured across the whole run.
      // With --rate, each target is measured twice, saturating and at the offered rate, the slices taking turns.
      const modes: { suffix: string; options: LoadOptions }[] = [
        { suffix: '', options },
        ...(args.rate === undefined ? [] : [{ suffix: ` @ ${args.rate} req/s`, options: { ...options, rate: args.rate } }]),
      ];
      const loads = targets.flatMap(({ target, child }) =>
        modes.map((mode) => {
          const shown = {
            ...target,
            id: `${target.id}${mode.suffix ? `@${mode.options.rate}` : ''}`,
            label: `${target.label}${mode.suffix}`,
          };
          return { target: shown, load: loadOn(shown, expected.get(target.id)!, mode.options, () => askCpu(child)) };
        }),
      );
      const seconds = options.duration / options.rounds;
      for (let round = 1; round <= options.rounds; round += 1) {
        log(`round ${round} of ${options.rounds}: ${seconds} s per target…`);
        for (const { target, load } of loads) {
          if (round === 1 && options.warmup > 0) {
            log(`  ${target.label}: ${options.warmup} s warm-up`);
            await load.warmUp();
          }
          await load.slice(seconds);
        }
      }
      rows.push(...loads.map(({ load }) => load.result()));
      if (!('skipped' in memory) && rows.length > 0) memory = { ...memory, end: await askMemory(apps[0]!.child) };
    } finally {
      await Promise.all([...apps.map((app) => stopServers(app.child)), stopServers(bare.child)]);
    }
  } finally {
    await Promise.all(
      connected.map((c) => c.drop().catch((error: unknown) => log(`could not drop the bench database: ${(error as Error).message}`))),
    );
  }
  const failed = problems(rows);
  const json = { ...info, results: rows, ratios: ratios(rows), memory, batchAccounts: base.batchAccounts, problems: failed };
  if (args.json) process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  else
    process.stdout.write(
      `${formatReport(info, rows, memory)}\n${formatComparison(
        configs.map((c) => c.name),
        rows,
      )}${formatYogaJitComparison(rows)}`,
    );
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
