import os from 'node:os';
import type { LoadOptions, Measurement } from './load';
import type { MemoryFigures, MemoryReport } from './memory';

export interface RunInfo {
  node: string;
  cpu: string;
  cores: number;
  date: string;
  /** 1-minute load average when the run started: above ~0.5 here, something else shares the 2 cores. */
  loadAverage: number;
  command: string;
  setup: string;
  options: LoadOptions;
  /** The app configurations measured (scripts/bench/configs.ts), in the order they are compared. */
  configs: string[];
}

/** Taken when the run starts, so that the date and the load average describe the run, not its end. */
export function runInfo(command: string, options: LoadOptions, child = 'under tsx', configs: string[] = ['sqlite']): RunInfo {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    date: new Date().toISOString(),
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
    command,
    setup:
      "the app in one child process, the baseline, the reference and the Express peer in another (so that none shares what the app's process holds), " +
      "autocannon in this one (so the load generator does not share the servers' event loop); " +
      `loopback 127.0.0.1; one target at a time; the app's child ${child}; ` +
      `configuration${configs.length === 1 ? '' : 's'} ${configs.join(', ')} (PostgreSQL and Redis, when named, run outside the app's process: their CPU is not in the app's)`,
    options,
    configs,
  };
}

/** Failures that make the figures meaningless: any response that was not the verified 200. */
export function problems(rows: readonly Measurement[]): string[] {
  return rows
    .filter((r) => r.non2xx + r.mismatches + r.errors + r.timeouts > 0)
    .map(
      (r) =>
        `${r.label}: non-2xx ${r.non2xx} ${JSON.stringify(r.statusCodes)}, body mismatches ${r.mismatches}, errors ${r.errors}, timeouts ${r.timeouts}` +
        (r.firstMismatch === undefined ? '' : `; first differing body: ${r.firstMismatch}`),
    );
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Conversions per second: req/s × items per request (1 for every row but batch). */
export function itemsPerSecond(row: Measurement): number {
  return row.requestsPerSecond * (row.itemsPerRequest ?? 1);
}

/**
 * A row's ratio to another row's req/s. For the batch row it is items/s ÷ req/s (the issue's
 * "≥ 4× the baseline's requests/s in items/s"); undefined where the other row was not run.
 */
export function ratio(row: Measurement, to: Measurement | undefined): number | undefined {
  return to && to.requestsPerSecond > 0 ? itemsPerSecond(row) / to.requestsPerSecond : undefined;
}

export interface Ratios {
  id: string;
  itemsPerSecond: number;
  vsBaseline: number | undefined;
  /** App rows only. */
  vsPeer: number | undefined;
  /**
   * The baseline's server CPU per request ÷ this row's per item: the ratio the rows would have if
   * each had a core of its own, the machine's other load aside. Undefined without CPU figures.
   */
  cpuVsBaseline: number | undefined;
}

/** Each row against the baseline and peer measured the same way: saturating, or at the same offered rate. */
export function ratios(rows: readonly Measurement[]): Ratios[] {
  const sameMode = (r: Measurement, kind: Measurement['kind']) => rows.find((o) => o.kind === kind && o.offeredRate === r.offeredRate);
  return rows.map((r) => {
    const baseline = sameMode(r, 'baseline');
    return {
      id: r.id,
      itemsPerSecond: itemsPerSecond(r),
      vsBaseline: ratio(r, baseline),
      vsPeer: r.kind === 'app' ? ratio(r, sameMode(r, 'peer')) : undefined,
      cpuVsBaseline: cpuRatio(r, baseline),
    };
  });
}

function cpuRatio(row: Measurement, baseline: Measurement | undefined): number | undefined {
  if (baseline?.serverCpuMicros === undefined || row.serverCpuMicros === undefined || row.serverCpuMicros <= 0) return undefined;
  return baseline.serverCpuMicros / (row.serverCpuMicros / (row.itemsPerRequest ?? 1));
}

function formatRatio(value: number | undefined, items: boolean): string {
  if (value === undefined) return '–';
  return `${value.toFixed(2)}x${items ? ' ⁱ' : ''}`;
}

/** The memory lines under the table: RSS and heap before and after the ECB history was loaded. */
export function formatMemory(memory: MemoryReport): string[] {
  if ('skipped' in memory) return [`memory: not measured (${memory.skipped})`];
  const line = (what: string, m: MemoryFigures) =>
    `- ${what}: RSS ${mib(m.rss)}, heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)}, peak RSS so far ${mib(m.maxRss)}${m.afterGc ? '' : ' (no GC exposed)'}`;
  return [
    `memory of the app's server child (process.memoryUsage() after a full GC; MiB = 2^20 bytes), RATES_FILE=${memory.file}`,
    `(publications ${memory.first} … ${memory.newest}, imported by the rates service's start() in ${memory.importSeconds.toFixed(1)} s):`,
    line('before the history was loaded', memory.before),
    line('2 s after it was loaded', memory.after),
    ...(memory.end ? [line('after every load row ran', memory.end)] : []),
  ];
}

/** A Markdown table, so a run can be pasted into docs/benchmarks.md as printed. */
export function formatReport(info: RunInfo, rows: readonly Measurement[], memory?: MemoryReport): string {
  const o = info.options;
  const byId = new Map(ratios(rows).map((r) => [r.id, r]));
  const batchRows = rows.filter((r) => r.itemsPerRequest !== undefined);
  const lines = [
    `node ${info.node} · ${info.cpu} × ${info.cores} cores · ${info.date} · load average at start ${info.loadAverage}`,
    `command: ${info.command}`,
    `load: ${o.connections} connections, pipelining ${o.pipelining}, ${o.warmup} s warm-up + ${o.duration} s measured per target, in ${o.rounds} slice${o.rounds === 1 ? '' : 's'} of ${o.duration / o.rounds} s (the targets taking turns)`,
    `setup: ${info.setup}`,
    '',
    '| target | req/s (mean ± sd) | items/s | p50 ms | p99 ms | server CPU µs/req | vs baseline | vs Express | CPU vs baseline | requests | non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows.map((r) => {
      const x = byId.get(r.id)!;
      const items = r.itemsPerRequest !== undefined;
      const rps = `${count(r.requestsPerSecond)} ± ${count(r.requestsPerSecondSd)}`;
      const cpu = r.serverCpuMicros === undefined ? '–' : r.serverCpuMicros.toFixed(r.serverCpuMicros < 100 ? 1 : 0);
      return `| ${r.label} | ${rps} | ${items ? count(x.itemsPerSecond) : ''} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${cpu} | ${formatRatio(x.vsBaseline, items)} | ${formatRatio(x.vsPeer, items)} | ${formatRatio(x.cpuVsBaseline, items)} | ${r.requests.toLocaleString('en-US')} | ${r.non2xx} |`;
    }),
  ];
  if (batchRows.length > 0) lines.push('', "ⁱ items/s (req/s × items per request) ÷ that row's req/s.");
  if (memory) lines.push('', ...formatMemory(memory));
  return lines.join('\n');
}
