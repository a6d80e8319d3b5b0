import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { createRatesService } from '../../src/data/rates';
import { currentMonth } from '../../src/domain/quota';
import { createMetrics } from '../../src/metrics';
import { createTestApp, type TestApp } from '../helpers/app';
import { listen } from '../helpers/http-server';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';
import { offline, silentLogger, tempRates } from '../data/rates/helpers';

const NOW = new Date('2024-04-03T12:00:00Z');

/** The value of one sample line of the exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',').filter(Boolean);
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics (METRICS=local, the default)', () => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  const scrape = async () => {
    const res = await fetch(`${server.base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT: '5' }, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => NOW });
    server = await listen(t);
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });

  it('counts requests and times them by route template and status, never by raw path', async () => {
    await fetch(`${server.base}/v1/units/meter`);
    await fetch(`${server.base}/v1/units/nothing-here`);
    await fetch(`${server.base}/some/${'random'}/path`);
    const text = await scrape();
    expect(sample(text, 'measurement_http_requests_total', { route: '/v1/units/{unit}', method: 'GET', status: '200' })).toBe(1);
    expect(sample(text, 'measurement_http_requests_total', { route: '/v1/units/{unit}', method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'measurement_http_requests_total', { route: 'other', method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'measurement_http_request_duration_seconds_count', { route: '/v1/units/{unit}', status: '200' })).toBe(1);
    expect(text).not.toContain('meter');
    expect(text).not.toContain('random');
  });

  it('reports the age of the latest rates and whether they are stale', async () => {
    const text = await scrape();
    // Newest publication 2024-04-02, now 2024-04-03 12:00 UTC: 36 hours.
    expect(sample(text, 'measurement_rates_age_seconds')).toBe(36 * 3600);
    expect(sample(text, 'measurement_rates_stale')).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it("reports the event loop's delay since the last scrape: a 300 ms stall shows in its maximum and p99", async () => {
    await scrape(); // starts a fresh window
    // The monitor samples every 10 ms and counts from its first sample after a scrape.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const end = performance.now() + 300;
    while (performance.now() < end);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const text = await scrape();
    expect(sample(text, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.25);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0.25);
    expect(sample(text, 'nodejs_eventloop_lag_p50_seconds')).toBeLessThan(0.25);
    // The window closes at each scrape: the next one no longer holds the stall.
    expect(sample(await scrape(), 'nodejs_eventloop_lag_max_seconds')).toBeLessThan(0.25);
  });

  it('counts auth failures by reason, quota refusals and rate-limit refusals by plan', async () => {
    await fetch(`${server.base}/v1/convert?value=1&from=m&to=ft`);
    await fetch(`${server.base}/v1/convert?value=1&from=m&to=ft`, { headers: { authorization: 'Bearer msr_test_nope' } });
    const { key, account } = await t.createAccountKey('free');
    await t.store.consumeQuota(account.id, currentMonth(NOW), 1000, 1000);
    const refused = await fetch(`${server.base}/v1/convert?value=1&from=m&to=ft`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(429);
    // PUBLIC_RATE_LIMIT=5 a minute: the three calls above spent three; GraphQL's public field spends too.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${server.base}/v1/categories`)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const graphql = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ health { status } }"}',
    });
    expect(((await graphql.json()) as { errors?: { extensions: { code: string } }[] }).errors?.[0]?.extensions.code).toBe(
      'RATE_LIMIT_EXCEEDED',
    );

    const text = await scrape();
    expect(sample(text, 'measurement_auth_failures_total', { reason: 'missing' })).toBe(1);
    expect(sample(text, 'measurement_auth_failures_total', { reason: 'invalid' })).toBe(1);
    expect(sample(text, 'measurement_quota_refusals_total', { plan: 'free' })).toBe(1);
    expect(sample(text, 'measurement_rate_limit_refusals_total', { plan: 'public' })).toBe(statuses.filter((s) => s === 429).length + 1);
  });

  it('answers HEAD without a body and refuses other methods with 405', async () => {
    const head = await fetch(`${server.base}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await fetch(`${server.base}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('takes the client address from the socket: X-Forwarded-For cannot make a client remote or local', async () => {
    const res = await fetch(`${server.base}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(res.status).toBe(200);
  });
});

describe('who may read /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const statusWith = async (options: Parameters<typeof listen>[1], headers: Record<string, string> = {}) => {
    const server = await listen(t, options);
    try {
      const res = await fetch(`${server.base}/metrics`, { headers });
      const body = res.status === 200 ? undefined : ((await res.json()) as { error: { code: string } });
      return { status: res.status, code: body?.error.code, nosniff: res.headers.get('x-content-type-options') };
    } finally {
      await server.close();
    }
  };

  it('METRICS=off: nobody, with the contract 404', async () => {
    expect(await statusWith({ metricsAccess: { mode: 'off' } })).toEqual({ status: 404, code: 'NOT_FOUND', nosniff: 'nosniff' });
  });

  it('METRICS=local behind a trusted proxy: the forwarded client decides', async () => {
    expect((await statusWith({ trustProxy: '1' }, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
    expect((await statusWith({ trustProxy: '1' }, { 'x-forwarded-for': '127.0.0.1' })).status).toBe(200);
  });

  it('METRICS=public: anyone, whatever the forwarded address', async () => {
    expect((await statusWith({ metricsAccess: { mode: 'public' }, trustProxy: '1' }, { 'x-forwarded-for': '203.0.113.9' })).status).toBe(
      200,
    );
  });

  it('METRICS=token:…: only the bearer of the token; others get the contract 404', async () => {
    const access = { mode: 'token' as const, token: 'a-long-enough-metrics-token' };
    expect((await statusWith({ metricsAccess: access })).status).toBe(404);
    expect((await statusWith({ metricsAccess: access }, { authorization: 'Bearer a-long-enough-metrics-tokeN' })).status).toBe(404);
    expect((await statusWith({ metricsAccess: access }, { authorization: 'Bearer a-long-enough-metrics-token' })).status).toBe(200);
  });

  it('a bad METRICS value stops start-up without showing it', () => {
    expect(() => loadConfig({ METRICS: 'token:short-secret' })).toThrow(/^Invalid configuration: METRICS .*\(value not shown\)$/);
    expect(() => loadConfig({ METRICS: 'token:short-secret' })).not.toThrow(/short-secret/);
    expect(loadConfig({ METRICS: 'token:a-long-enough-metrics-token' }).metrics).toEqual({
      mode: 'token',
      token: 'a-long-enough-metrics-token',
    });
    expect(loadConfig({}).metrics).toEqual({ mode: 'local' });
  });
});

describe('ECB fetch failures', () => {
  it('are counted once per failed refresh, after its retries', async () => {
    const temp = tempRates();
    const metrics = createMetrics();
    const rates = createRatesService({
      config: temp.config,
      logger: silentLogger,
      fetch: offline,
      tuning: { tries: 2, retryBaseDelayMs: 1 },
      onFetchFailure: () => metrics.ecbFetchFailed(),
    });
    try {
      await expect(rates.refresh()).rejects.toThrow();
      await expect(rates.refresh()).rejects.toThrow();
      expect(sample(await metrics.render(), 'measurement_ecb_fetch_failures_total')).toBe(2);
    } finally {
      await rates.stop();
      await temp.cleanup();
    }
  });
});
