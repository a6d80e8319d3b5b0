import os from 'node:os';
import type { LoadOptions, Measurement } from './load';

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
}

/** Taken when the run starts, so that the date and the load average describe the run, not its end. */
export function runInfo(command: string, options: LoadOptions): RunInfo {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    date: new Date().toISOString(),
    loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
    command,
    setup:
      'servers in a child process, autocannon in this one (so the load generator does not share the servers\' event loop); ' +
      'loopback 127.0.0.1; one target at a time',
    options,
  };
}

/** Failures that make the figures meaningless: any response that was not the verified 200. */
export function problems(rows: readonly Measurement[]): string[] {
  return rows
    .filter((r) => r.non2xx + r.mismatches + r.errors + r.timeouts > 0)
    .map((r) => `${r.label}: non-2xx ${r.non2xx} ${JSON.stringify(r.statusCodes)}, body mismatches ${r.mismatches}, errors ${r.errors}, timeouts ${r.timeouts}`);
}

const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));

/** A Markdown table, so a run can be pasted into docs/benchmarks.md as printed. */
export function formatReport(info: RunInfo, rows: readonly Measurement[]): string {
  const baseline = rows.find((r) => r.id === 'baseline')?.requestsPerSecond;
  const o = info.options;
  const lines = [
    `node ${info.node} · ${info.cpu} × ${info.cores} cores · ${info.date} · load average at start ${info.loadAverage}`,
    `command: ${info.command}`,
    `load: ${o.connections} connections, pipelining ${o.pipelining}, ${o.warmup} s warm-up + ${o.duration} s measured per target`,
    `setup: ${info.setup}`,
    '',
    '| target | req/s (mean ± sd) | p50 ms | p99 ms | vs baseline | requests | non-2xx |',
    '|---|--:|--:|--:|--:|--:|--:|',
    ...rows.map((r) => {
      const ratio = baseline ? `${(r.requestsPerSecond / baseline).toFixed(2)}x` : 'n/a';
      const rps = `${Math.round(r.requestsPerSecond).toLocaleString('en-US')} ± ${Math.round(r.requestsPerSecondSd).toLocaleString('en-US')}`;
      return `| ${r.label} | ${rps} | ${ms(r.p50Ms)} | ${ms(r.p99Ms)} | ${ratio} | ${r.requests.toLocaleString('en-US')} | ${r.non2xx} |`;
    }),
  ];
  return lines.join('\n');
}
