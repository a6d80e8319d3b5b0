import { describe, expect, it } from 'vitest';
import { formatComparison } from '../../../scripts/bench/compare';
import { configsFrom } from '../../../scripts/bench/configs';
import type { Measurement } from '../../../scripts/bench/load';

const ENV = { TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test', TEST_REDIS_URL: 'redis://127.0.0.1:6379/15' };

describe('bench configurations', () => {
  it('is the SQLite default unless told otherwise', () => {
    expect(configsFrom({}, {}).map((c) => c.name)).toEqual(['sqlite']);
  });

  it('reads --database postgres --redis as one configuration, --configs as several in order', () => {
    expect(configsFrom({ database: 'postgres', redis: true }, ENV)).toEqual([
      { name: 'postgres+redis', database: 'postgres', redis: true },
    ]);
    expect(configsFrom({ configs: 'sqlite,postgres+redis' }, ENV).map((c) => c.name)).toEqual(['sqlite', 'postgres+redis']);
  });

  it('refuses what it cannot run before anything starts', () => {
    expect(() => configsFrom({ database: 'postgres' }, {})).toThrow(/TEST_DATABASE_URL/);
    expect(() => configsFrom({ redis: true }, {})).toThrow(/TEST_REDIS_URL/);
    expect(() => configsFrom({ configs: 'sqlite,mysql' }, ENV)).toThrow(/unknown configuration 'mysql'/);
    expect(() => configsFrom({ configs: 'sqlite,sqlite' }, ENV)).toThrow(/twice/);
    expect(() => configsFrom({ configs: 'sqlite', database: 'postgres' }, ENV)).toThrow(/cannot be combined/);
    expect(() => configsFrom({ database: 'mysql' }, ENV)).toThrow(/sqlite or postgres/);
  });
});

const row = (id: string, kind: Measurement['kind'], requestsPerSecond: number, serverCpuMicros: number, p99Ms = 2): Measurement => ({
  id,
  label: id,
  kind,
  itemsPerRequest: undefined,
  requestsPerSecond,
  requestsPerSecondSd: 0,
  p50Ms: 1,
  p99Ms,
  requests: requestsPerSecond,
  non2xx: 0,
  mismatches: 0,
  errors: 0,
  timeouts: 0,
  statusCodes: {},
  firstMismatch: undefined,
  serverCpuMicros,
});

describe('bench comparison of configurations', () => {
  it('divides each configuration by the first, GraphQL by REST, the worst p99 by the baseline', () => {
    const rows = [
      row('baseline', 'baseline', 40_000, 15, 1),
      row('rest@sqlite', 'app', 20_000, 50, 3),
      row('graphql@sqlite', 'app', 10_000, 100, 4),
      row('rest@postgres+redis', 'app', 16_000, 60, 5),
      row('graphql@postgres+redis', 'app', 12_000, 75, 8),
    ];
    const text = formatComparison(['sqlite', 'postgres+redis'], rows);
    expect(text).toContain('| sqlite | 1.00x | 1.00x | 0.50x | 2.00x | 4.00x | 0 |');
    expect(text).toContain('| postgres+redis | 0.80x | 1.20x | 0.75x | 1.25x | 8.00x | 0 |');
  });

  it("leaves the graphql-yoga-jit row out of the app's worst p99 and non-2xx", () => {
    const rows = [
      row('baseline', 'baseline', 40_000, 15, 1),
      row('rest', 'app', 20_000, 50, 3),
      row('graphql-yoga-jit', 'app', 9_000, 90, 9),
    ];
    rows[2]!.non2xx = 4;
    expect(formatComparison(['sqlite'], rows)).toContain('| 3.00x | 0 |');
  });

  it('uses the plain ids of a run of one configuration', () => {
    const text = formatComparison(['sqlite'], [row('rest', 'app', 100, 10), row('graphql', 'app', 50, 20)]);
    expect(text).toContain('| sqlite | 1.00x | 1.00x | 0.50x | 2.00x |');
  });
});
