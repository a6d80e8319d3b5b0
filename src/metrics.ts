import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import { LOOP_DELAY_METRICS, registerLoopDelay, type PausableWork } from './loop-delay';
import type { RatesStatus } from './services/currency/rates';

/**
 * The one place metrics are recorded (Prometheus, via prom-client). Every label has a small, fixed
 * set of values: a route is its template from the route table or "graphql", "account", "metrics",
 * "other" — never a raw URL; a plan is a plan id or "public". Any handler (Yoga's plugins, a
 * node:http fast path) records through these functions.
 */
export interface Metrics {
  /** One answered request. `route` from routeLabel(). */
  request(route: string, method: string, status: number, seconds: number): void;
  /** Conversions refused for the monthly quota (a batch may refuse several at once). */
  quotaRefused(plan: string, count: number): void;
  /** A request refused by a rate limit; `plan` is "public" on public routes. */
  rateLimited(plan: string): void;
  /** An Authorization header refused: no key at all, or a key that is not valid. */
  authFailed(reason: 'missing' | 'invalid'): void;
  /** An ECB refresh that failed after its retries. */
  ecbFetchFailed(): void;
  /** A series page written for an answer: `computed` from the publications, or taken from the export `cache`. */
  seriesExport(source: 'computed' | 'cache'): void;
  /** The rates whose age the scrape reports. */
  watchRates(status: () => RatesStatus, clock: () => Date): void;
  /** The Prometheus text exposition, and its content type. */
  render(): Promise<string>;
  readonly contentType: string;
  /** The event loop's delay is sampled between start() and stop() (loop-delay.ts): the front samples while any client connection is open. */
  readonly loopDelay: PausableWork;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT', 'PATCH', 'DELETE']);

export function createMetrics(): Metrics {
  const registry = new Registry();
  const loopDelay = registerProcessMetrics(registry);
  const requests = new RequestTally(
    'measurement_http_requests_total',
    'Requests answered, by route template, method and status.',
    'measurement_http_request_duration_seconds',
    'Time from the request to its answer, by route template, method and status.',
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  requests.register(registry);
  const quota = new Counter({
    name: 'measurement_quota_refusals_total',
    help: 'Conversions refused because the monthly quota was used up, by plan.',
    labelNames: ['plan'],
    registers: [registry],
  });
  const rateLimit = new Counter({
    name: 'measurement_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit, by plan ("public" for per-IP limits).',
    labelNames: ['plan'],
    registers: [registry],
  });
  const auth = new Counter({
    name: 'measurement_auth_failures_total',
    help: 'Refused Authorization headers: missing, or a key not valid here.',
    labelNames: ['reason'],
    registers: [registry],
  });
  const ecb = new Counter({
    name: 'measurement_ecb_fetch_failures_total',
    help: 'ECB refreshes that failed after their retries.',
    registers: [registry],
  });
  for (const reason of ['missing', 'invalid']) auth.inc({ reason }, 0);
  ecb.inc(0);
  const exports = new Counter({
    name: 'measurement_series_exports_total',
    help: 'Series pages answered by REST, by source: computed from the publications, or from the export cache.',
    labelNames: ['source'],
    registers: [registry],
  });
  for (const source of ['computed', 'cache']) exports.inc({ source }, 0);

  let rates: { status: () => RatesStatus; clock: () => Date } | undefined;
  new Gauge({
    name: 'measurement_rates_age_seconds',
    help: 'Seconds since 00:00 UTC of the newest ECB publication held; absent while none is loaded.',
    registers: [registry],
    collect() {
      this.reset();
      const date = rates?.status().date;
      if (rates && date) this.set((rates.clock().getTime() - Date.parse(`${date}T00:00:00Z`)) / 1000);
    },
  });
  new Gauge({
    name: 'measurement_rates_stale',
    help: '1 when a newer ECB publication is overdue or none is loaded, else 0.',
    registers: [registry],
    collect() {
      this.set(rates?.status().stale === false ? 0 : 1);
    },
  });

  return {
    request: (route, method, status, seconds) => requests.record(route, METHODS.has(method) ? method : 'other', status, seconds),
    quotaRefused: (plan, count) => quota.inc({ plan }, count),
    rateLimited: (plan) => rateLimit.inc({ plan }),
    authFailed: (reason) => auth.inc({ reason }),
    ecbFetchFailed: () => ecb.inc(),
    seriesExport: (source) => exports.inc({ source }),
    watchRates(status, clock) {
      rates = { status, clock };
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
    loopDelay,
  };
}

/**
 * Process CPU and memory, GC, handles and the event loop's delay. prom-client's event-loop monitor
 * samples every 10 ms for the life of the process (a timer that wakes an idle server 100 times a
 * second): it is given the longest period a timer takes, and its metrics are replaced by
 * loop-delay.ts's, sampled only while the returned work is started.
 */
function registerProcessMetrics(registry: Registry): PausableWork {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 2 ** 31 - 1 });
  for (const name of LOOP_DELAY_METRICS) registry.removeSingleMetric(name);
  return registerLoopDelay(registry);
}

/** One route, method and status: its answers, their total time and how many fell in each bucket. */
interface TallyRow {
  readonly labels: { route: string; method: string; status: string };
  count: number;
  sum: number;
  /** Not cumulative: buckets[i] counts the answers above bound i-1 and at most bound i (the last, above every bound). */
  readonly buckets: number[];
}

/**
 * The request counter and duration histogram, kept as plain numbers per (route, method, status) and
 * given to the registry as two metrics in prom-client's own shape, so the exposition is prom-client's
 * text. Recording is per request: a Map lookup by one string and three additions, where prom-client's
 * Counter and Histogram each hash and validate a label object on every call, a cost every request
 * would pay.
 */
class RequestTally {
  private readonly rows = new Map<string, TallyRow>();

  constructor(
    private readonly counterName: string,
    private readonly counterHelp: string,
    private readonly histogramName: string,
    private readonly histogramHelp: string,
    private readonly bounds: readonly number[],
  ) {}

  record(route: string, method: string, status: number, seconds: number): void {
    const key = `${status} ${method} ${route}`;
    let row = this.rows.get(key);
    if (row === undefined) {
      row = {
        labels: { route, method, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array<number>(this.bounds.length + 1).fill(0),
      };
      this.rows.set(key, row);
    }
    row.count += 1;
    if (Number.isFinite(seconds)) row.sum += seconds;
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket += 1;
    row.buckets[bucket]! += 1;
  }

  register(registry: Registry): void {
    const rows = () => [...this.rows.values()];
    collected(
      registry,
      this.counterName,
      this.counterHelp,
      'counter',
      () => this.rows.clear(),
      () => rows().map((row) => ({ labels: row.labels, value: row.count })),
    );
    collected(
      registry,
      this.histogramName,
      this.histogramHelp,
      'histogram',
      () => this.rows.clear(),
      () =>
        rows().flatMap((row) => {
          let cumulative = 0;
          const buckets = row.buckets.map((count, i) => {
            cumulative += count;
            const le = i < this.bounds.length ? this.bounds[i]! : '+Inf';
            return { labels: { le, ...row.labels }, value: cumulative, metricName: `${this.histogramName}_bucket` };
          });
          return [
            ...buckets,
            { labels: row.labels, value: row.sum, metricName: `${this.histogramName}_sum` },
            { labels: row.labels, value: row.count, metricName: `${this.histogramName}_count` },
          ];
        }),
    );
  }
}

/** A metric whose samples are computed at scrape time, registered in prom-client's own shape (what its Registry reads of a metric). */
function collected(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  reset: () => void,
  values: () => object[],
): void {
  registry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    reset,
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
  } as unknown as Metric);
}
