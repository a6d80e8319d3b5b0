import autocannon from 'autocannon';
import type { Target } from './targets';

export interface LoadOptions {
  /** Seconds measured per target, in all. */
  duration: number;
  /**
   * The measured seconds come in this many slices per target, the targets taking turns (baseline,
   * app, baseline, app…), so that every row is measured across the same minutes of the run: on a
   * shared machine the speed drifts within a run, and a row measured in one block takes whatever
   * its 10 seconds drew (the baseline's own spread reached ±25 % within a block).
   */
  rounds: number;
  /** Seconds of load before measuring, discarded: lets V8 optimise the hot paths and the heap settle. */
  warmup: number;
  connections: number;
  pipelining: number;
  /**
   * Requests a second offered to the target in all (autocannon's overallRate), whatever it
   * answers: the load production instances run at, below saturation. Undefined: as fast as the
   * connections go (saturation).
   */
  rate?: number;
}

export interface Measurement {
  id: string;
  label: string;
  kind: Target['kind'];
  /** Conversions per request (the batch row). */
  itemsPerRequest: number | undefined;
  /** The fixed rate offered (req/s); undefined for a saturating row. */
  offeredRate?: number;
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

function fire(
  target: Target,
  expectBody: string,
  seconds: number,
  o: LoadOptions,
  onMismatch: (body: string) => void,
  onLatency?: (ms: number) => void,
): Promise<autocannon.Result> {
  const path = new URL(target.url);
  // Several keys: every connection sends one request per key in turn. autocannon refuses
  // expectBody next to `requests`, so verifyBody compares the body instead (the same test).
  const requests = target.headerCycle?.map((headers) => ({
    method: target.method,
    path: path.pathname + path.search,
    headers,
    body: target.body,
  }));
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
        ...(o.rate === undefined ? {} : { overallRate: o.rate }),
        ...(requests ? { requests } : {}),
        // A body that changes mid-run (an error, a 429 envelope with status 200, an item refused
        // inside a batch) counts as a mismatch; the first one is kept for the report.
        verifyBody: (body) => {
          if ((target.steady ? target.steady(String(body)) : body) === expectBody) return true;
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

/** One stretch of measured load on one target: what autocannon counted, and the server's CPU over it. */
export interface Slice {
  seconds: number;
  /** Mean and spread of autocannon's per-second request counts in this slice. */
  mean: number;
  sd: number;
  requests: number;
  latencies: readonly number[];
  /** Server CPU (µs) over the slice; undefined when not measured. */
  cpuMicros: number | undefined;
  result: Pick<autocannon.Result, 'non2xx' | 'mismatches' | 'errors' | 'timeouts' | 'statusCodeStats'>;
}

/**
 * A target under load: warm it up once, then measure it in slices (see LoadOptions.rounds). Every
 * response of both is checked against the verified body.
 */
export function loadOn(target: Target, expectBody: string, o: LoadOptions, serverCpu?: CpuClock) {
  let firstMismatch: string | undefined;
  const onMismatch = (body: string) => {
    firstMismatch ??= body.slice(0, 500);
  };
  let warm: autocannon.Result | undefined;
  const slices: Slice[] = [];
  return {
    async warmUp(): Promise<void> {
      if (o.warmup > 0) warm = await fire(target, expectBody, o.warmup, o, onMismatch);
    },
    async slice(seconds: number): Promise<void> {
      const latencies: number[] = [];
      const cpuBefore = await serverCpu?.();
      const run = await fire(target, expectBody, seconds, o, onMismatch, (ms) => latencies.push(ms));
      const cpuAfter = await serverCpu?.();
      slices.push({
        seconds,
        mean: run.requests.mean,
        sd: run.requests.stddev,
        requests: run.requests.total,
        latencies,
        cpuMicros: cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter - cpuBefore : undefined,
        result: run,
      });
    },
    result: (): Measurement => ({
      ...combine(target, slices, warm, firstMismatch),
      ...(o.rate === undefined ? {} : { offeredRate: o.rate }),
    }),
  };
}

/** The slices of one target as one row: per-second means weighted by seconds, their pooled spread, latencies and CPU over all of them. */
export function combine(
  target: Pick<Target, 'id' | 'label' | 'kind' | 'itemsPerRequest'>,
  slices: readonly Slice[],
  warm?: Slice['result'],
  firstMismatch?: string,
): Measurement {
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
  const mean = seconds > 0 ? slices.reduce((sum, s) => sum + s.mean * s.seconds, 0) / seconds : 0;
  // Pooled: the spread within each slice plus the spread between the slices' means.
  const variance = seconds > 0 ? slices.reduce((sum, s) => sum + s.seconds * (s.sd ** 2 + (s.mean - mean) ** 2), 0) / seconds : 0;
  const requests = slices.reduce((sum, s) => sum + s.requests, 0);
  const cpu =
    slices.every((s) => s.cpuMicros !== undefined) && slices.length > 0 ? slices.reduce((sum, s) => sum + s.cpuMicros!, 0) : undefined;
  const sorted = Float64Array.from(slices.flatMap((s) => s.latencies)).sort();
  const results = [...(warm ? [warm] : []), ...slices.map((s) => s.result)];
  const statusCodes: Record<string, number> = {};
  for (const result of results) {
    for (const [code, stat] of Object.entries(result.statusCodeStats ?? {}))
      statusCodes[code] = (statusCodes[code] ?? 0) + (stat.count ?? 0);
  }
  const sum = (pick: (r: Slice['result']) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    id: target.id,
    label: target.label,
    kind: target.kind,
    itemsPerRequest: target.itemsPerRequest,
    requestsPerSecond: mean,
    requestsPerSecondSd: Math.sqrt(variance),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    requests,
    non2xx: sum((r) => r.non2xx),
    mismatches: sum((r) => r.mismatches),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    statusCodes,
    firstMismatch,
    serverCpuMicros: cpu !== undefined && requests > 0 ? cpu / requests : undefined,
  };
}
