/**
 * The request counter and duration histogram are tallied by src/metrics.ts itself (no label object
 * hashed per request), but their exposition must stay exactly what prom-client's own Counter and
 * Histogram print for the same answers: the reference below is those two, fed the same observations.
 */
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics';

const COUNTER = 'measurement_http_requests_total';
const HISTOGRAM = 'measurement_http_request_duration_seconds';
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** The lines of the exposition that belong to the two request metrics, HELP and TYPE included. */
function requestLines(text: string): string[] {
  return text.split('\n').filter((line) => line.includes(COUNTER) || line.includes(HISTOGRAM));
}

async function reference(observations: readonly (readonly [string, string, number, number])[]): Promise<string[]> {
  const registry = new Registry();
  const labelNames = ['route', 'method', 'status'];
  const counter = new Counter({
    name: COUNTER,
    help: 'Requests answered, by route template, method and status.',
    labelNames,
    registers: [registry],
  });
  const histogram = new Histogram({
    name: HISTOGRAM,
    help: 'Time from the request to its answer, by route template, method and status.',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  for (const [route, method, status, seconds] of observations) {
    const labels = { route, method, status: String(status) };
    counter.inc(labels);
    histogram.observe(labels, seconds);
  }
  return requestLines(await registry.metrics());
}

const observation = fc.tuple(
  fc.constantFrom('/v1/convert', '/v1/units/{unit}', 'graphql', 'other'),
  fc.constantFrom('GET', 'POST', 'HEAD'),
  fc.constantFrom(200, 304, 400, 401, 404, 429, 500),
  // Exactly on the bounds too: an answer of 0.005 s counts in le="0.005".
  fc.oneof(fc.constantFrom(0, ...BUCKETS, 3, 60), fc.double({ min: 0, max: 5, noNaN: true })),
);

describe('the request metrics (src/metrics.ts tally)', () => {
  it('print what prom-client Counter and Histogram print for the same answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 40 }), async (observations) => {
        const metrics = createMetrics();
        for (const [route, method, status, seconds] of observations) metrics.request(route, method, status, seconds);
        expect(requestLines(await metrics.render())).toEqual(await reference(observations));
      }),
      { numRuns: 200 },
    );
  });

  it('counts a method outside the known ones as "other"', async () => {
    const metrics = createMetrics();
    metrics.request('other', 'BREW', 405, 0.002);
    const lines = requestLines(await metrics.render());
    expect(lines).toContain(`${COUNTER}{route="other",method="other",status="405"} 1`);
    expect(lines).toContain(`${HISTOGRAM}_bucket{le="0.0025",route="other",method="other",status="405"} 1`);
  });
});
