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
  kind: Target['kind'];
  /** Conversions per request (the batch row). */
  itemsPerRequest: number | undefined;
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
  /** The start of the first body that differed from the verified one. */
  firstMismatch: string | undefined;
  /**
   * The server process's CPU time (user + system) over the measured seconds ÷ the requests they
   * served: what one request costs the server, much less moved by other load on the machine than
   * req/s (which also counts the time the server waits for a core). Undefined when not measured.
   */
  serverCpuMicros?: number | undefined;
}

/** Reads the server process's CPU time so far, in µs (process.cpuUsage() user + system). */
export type CpuClock = () => Promise<number>;

function fire(target: Target, expectBody: string, seconds: number, o: LoadOptions, onMismatch: (body: string) => void, onLatency?: (ms: number) => void): Promise<autocannon.Result> {
  const path = new URL(target.url);
  // Several keys: every connection sends one request per key in turn. autocannon refuses
  // expectBody next to `requests`, so verifyBody compares the body instead (the same test).
  const requests = target.headerCycle?.map((headers) => ({ method: target.method, path: path.pathname + path.search, headers, body: target.body }));
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
        ...(requests ? { requests } : {}),
        // A body that changes mid-run (an error, a 429 envelope with status 200, an item refused
        // inside a batch) counts as a mismatch; the first one is kept for the report.
        verifyBody: (body) => {
          if (body === expectBody) return true;
          onMismatch(String(body));
          return false;
        },
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

export async function measure(target: Target, expectBody: string, o: LoadOptions, serverCpu?: CpuClock): Promise<Measurement> {
  let firstMismatch: string | undefined;
  const onMismatch = (body: string) => {
    firstMismatch ??= body.slice(0, 500);
  };
  const warm = o.warmup > 0 ? await fire(target, expectBody, o.warmup, o, onMismatch) : undefined;
  const latencies: number[] = [];
  const cpuBefore = await serverCpu?.();
  const run = await fire(target, expectBody, o.duration, o, onMismatch, (ms) => latencies.push(ms));
  const cpuAfter = await serverCpu?.();
  const sorted = Float64Array.from(latencies).sort();
  const statusCodes: Record<string, number> = {};
  for (const result of [warm, run]) {
    for (const [code, stat] of Object.entries(result?.statusCodeStats ?? {})) statusCodes[code] = (statusCodes[code] ?? 0) + (stat.count ?? 0);
  }
  const sum = (pick: (r: autocannon.Result) => number) => pick(run) + (warm ? pick(warm) : 0);
  return {
    id: target.id,
    label: target.label,
    kind: target.kind,
    itemsPerRequest: target.itemsPerRequest,
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
    firstMismatch,
    serverCpuMicros: cpuBefore !== undefined && cpuAfter !== undefined && run.requests.total > 0 ? (cpuAfter - cpuBefore) / run.requests.total : undefined,
  };
}
