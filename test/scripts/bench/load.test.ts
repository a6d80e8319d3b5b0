import { describe, expect, it } from 'vitest';
import { combine, type Slice } from '../../../scripts/bench/load';

const TARGET = { id: 'rest', label: 'GET /v1/convert', kind: 'app' as const, itemsPerRequest: undefined };

const slice = (
  seconds: number,
  mean: number,
  sd: number,
  cpuMicros: number | undefined,
  latencies: number[] = [],
  statuses: Record<string, number> = { 200: mean * seconds },
): Slice => ({
  seconds,
  mean,
  sd,
  requests: mean * seconds,
  latencies,
  cpuMicros,
  result: {
    non2xx: Object.entries(statuses).reduce((n, [code, count]) => (code.startsWith('2') ? n : n + count), 0),
    mismatches: 0,
    errors: 0,
    timeouts: 0,
    statusCodeStats: Object.fromEntries(Object.entries(statuses).map(([code, count]) => [code, { count }])) as never,
  },
});

describe('the slices of one target as one row', () => {
  it('weights the slices by their seconds and pools their spread (within and between)', () => {
    const row = combine(TARGET, [slice(2, 10_000, 0, 200_000), slice(2, 20_000, 0, 600_000)]);
    expect(row.requestsPerSecond).toBe(15_000);
    // Two equal halves at 10k and 20k, steady within: the spread is the distance to the mean.
    expect(row.requestsPerSecondSd).toBe(5_000);
    expect(row.requests).toBe(60_000);
    // CPU over all slices ÷ all requests: 800,000 µs / 60,000.
    expect(row.serverCpuMicros).toBeCloseTo(13.333, 3);
  });

  it('keeps the spread within the slices when their means agree', () => {
    const row = combine(TARGET, [slice(2, 100, 3, undefined), slice(4, 100, 3, undefined)]);
    expect(row.requestsPerSecond).toBe(100);
    expect(row.requestsPerSecondSd).toBeCloseTo(3, 10);
  });

  it('takes latency percentiles over every slice, and counts statuses of the warm-up too', () => {
    const warm = slice(1, 5, 0, undefined, [], { 200: 4, 500: 1 }).result;
    const row = combine(TARGET, [slice(1, 2, 0, 1, [5, 1]), slice(1, 2, 0, 1, [3, 2])], warm, 'oops');
    expect(row.p50Ms).toBe(2);
    expect(row.p99Ms).toBe(5);
    expect(row.statusCodes).toEqual({ 200: 8, 500: 1 });
    expect(row.non2xx).toBe(1);
    expect(row.firstMismatch).toBe('oops');
  });

  it('has no CPU figure unless every slice measured it', () => {
    expect(combine(TARGET, [slice(1, 10, 0, 100), slice(1, 10, 0, undefined)]).serverCpuMicros).toBeUndefined();
  });
});
