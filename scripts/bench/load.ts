import autocannon from 'autocannon';
import type { Target } from './targets';

export interface LoadOptions {
  /** Seconds measured per target. */
  duration: number;
  /** Seconds of load before measuring, discarded: lets V8 optimise the hot paths and the heap settle. */
  warmup: number;
  connections: number;
  pipelining: number;
}

export interface Measurement {
  id: string;
  label: string;
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number;
  /** Spread of the per-second samples: large when something else competes for the CPU. */
  requestsPerSecondSd: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Counted over warm-up and measurement: every one of them must be 0. */
  non2xx: number;
  mismatches: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

function fire(target: Target, expectBody: string, seconds: number, o: LoadOptions, onLatency?: (ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections: o.connections,
        pipelining: o.pipelining,
        duration: seconds,
        // A body that changes mid-run (an error, a 429 envelope with status 200) counts as a mismatch.
        expectBody,
      },
      (error: unknown, result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(result)),
    );
    // autocannon's histogram keeps whole milliseconds; the event carries the hrtime duration, and
    // the fast rows answer well under 1 ms.
    if (onLatency) instance.on('response', (_client, _status, _bytes, ms) => onLatency(ms));
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export async function measure(target: Target, expectBody: string, o: LoadOptions): Promise<Measurement> {
  const warm = o.warmup > 0 ? await fire(target, expectBody, o.warmup, o) : undefined;
  const latencies: number[] = [];
  const run = await fire(target, expectBody, o.duration, o, (ms) => latencies.push(ms));
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const result of [warm, run]) {
    for (const [code, stat] of Object.entries(result?.statusCodeStats ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + (stat.count ?? 0);
  }
  const sum = (pick: (r: autocannon.Result) => number) => pick(run) + (warm ? pick(warm) : 0);
  return {
    id: target.id,
    label: target.label,
    requestsPerSecond: run.requests.mean,
    requestsPerSecondSd: run.requests.stddev,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests: run.requests.total,
    non2xx: sum((r) => r.non2xx),
    mismatches: sum((r) => r.mismatches),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
  };
}
