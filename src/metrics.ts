import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RatesStatus } from './services/rates';

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
  /** The rates whose age the scrape reports. */
  watchRates(status: () => RatesStatus, clock: () => Date): void;
  /** The Prometheus text exposition, and its content type. */
  render(): Promise<string>;
  readonly contentType: string;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS', 'PUT', 'PATCH', 'DELETE']);

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Process CPU and memory, GC, and the event-loop lag (nodejs_eventloop_lag_seconds and its percentiles).
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'measurement_http_requests_total', help: 'Requests answered, by route template, method and status.', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const durations = new Histogram({
    name: 'measurement_http_request_duration_seconds',
    help: 'Time from the request to its answer, by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const quota = new Counter({ name: 'measurement_quota_refusals_total', help: 'Conversions refused because the monthly quota was used up, by plan.', labelNames: ['plan'], registers: [registry] });
  const rateLimit = new Counter({ name: 'measurement_rate_limit_refusals_total', help: 'Requests refused by a rate limit, by plan ("public" for per-IP limits).', labelNames: ['plan'], registers: [registry] });
  const auth = new Counter({ name: 'measurement_auth_failures_total', help: 'Refused Authorization headers: missing, or a key not valid here.', labelNames: ['reason'], registers: [registry] });
  const ecb = new Counter({ name: 'measurement_ecb_fetch_failures_total', help: 'ECB refreshes that failed after their retries.', registers: [registry] });
  for (const reason of ['missing', 'invalid']) auth.inc({ reason }, 0);
  ecb.inc(0);

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
    request(route, method, status, seconds) {
      const labels = { route, method: METHODS.has(method) ? method : 'other', status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
    },
    quotaRefused: (plan, count) => quota.inc({ plan }, count),
    rateLimited: (plan) => rateLimit.inc({ plan }),
    authFailed: (reason) => auth.inc({ reason }),
    ecbFetchFailed: () => ecb.inc(),
    watchRates(status, clock) {
      rates = { status, clock };
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
