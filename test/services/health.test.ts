import { describe, expect, it } from 'vitest';
import { healthReport, type RateLimitBackend } from '../../src/services/health';
import type { RatesReader, RatesStatus } from '../../src/services/currency/rates';

const ratesWith = (status: RatesStatus) => ({ status: () => status }) as unknown as RatesReader;
const current = ratesWith({
  date: '2026-04-13',
  fetchedAt: '2026-04-13T14:05:00.000Z',
  stale: false,
  missingPublications: 0,
  lastError: null,
});
const stale = ratesWith({ date: '2026-04-13', fetchedAt: null, stale: true, missingPublications: 3, lastError: null });
const limits = (countedIn: 'redis' | 'memory', redisConfigured: boolean): RateLimitBackend => ({
  countedIn: () => countedIn,
  redisConfigured,
});

describe('health', () => {
  it.each([
    ['current rates, no REDIS_URL: memory is where limits belong', current, limits('memory', false), 'ok'],
    ['current rates, Redis up', current, limits('redis', true), 'ok'],
    ['current rates, Redis configured but down: limits per instance', current, limits('memory', true), 'degraded'],
    ['stale rates, Redis up', stale, limits('redis', true), 'degraded'],
  ] as const)('%s → %s', (_, rates, backend, status) => {
    const report = healthReport(rates, backend);
    expect(report).toMatchObject({ status, version: expect.any(String), rateLimits: backend.countedIn(), rates: rates.status() });
  });
});
