import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../../scripts/bench/load';
import { formatMemory, formatReport, ratios, runInfo } from '../../../scripts/bench/report';

const row = (
  id: string,
  kind: Measurement['kind'],
  requestsPerSecond: number,
  itemsPerRequest?: number,
  serverCpuMicros?: number,
): Measurement => ({
  id,
  label: id,
  kind,
  itemsPerRequest,
  requestsPerSecond,
  requestsPerSecondSd: 1,
  p50Ms: 1,
  p99Ms: 2,
  requests: requestsPerSecond * 10,
  non2xx: 0,
  mismatches: 0,
  errors: 0,
  timeouts: 0,
  statusCodes: { 200: requestsPerSecond * 10 },
  firstMismatch: undefined,
  serverCpuMicros,
});

const ROWS = [
  row('baseline', 'baseline', 40_000, undefined, 20),
  row('express', 'peer', 8_000, undefined, 100),
  row('rest', 'app', 20_000, undefined, 50),
  row('batch', 'app', 200, 1000, 4000),
];

describe('bench report ratios', () => {
  it('compares a row at a fixed offered rate with the baseline and peer at the same rate, not the saturating ones', () => {
    const paced = (r: Measurement): Measurement => ({ ...r, id: `${r.id}@1000`, offeredRate: 1000 });
    const rows = [
      ...ROWS,
      paced(row('baseline', 'baseline', 1000, undefined, 30)),
      paced(row('express', 'peer', 1000, undefined, 120)),
      paced(row('rest', 'app', 1000, undefined, 60)),
    ];
    const r = new Map(ratios(rows).map((x) => [x.id, x]));
    expect(r.get('rest@1000')?.cpuVsBaseline).toBe(0.5);
    expect(r.get('rest@1000')?.vsPeer).toBe(1);
    expect(r.get('rest')?.cpuVsBaseline).toBe(0.4);
  });

  it('divides every row by the baseline, and the batch row by items/s', () => {
    const r = new Map(ratios(ROWS).map((x) => [x.id, x]));
    expect(r.get('baseline')?.vsBaseline).toBe(1);
    expect(r.get('express')?.vsBaseline).toBe(0.2);
    expect(r.get('rest')?.vsBaseline).toBe(0.5);
    expect(r.get('batch')?.itemsPerSecond).toBe(200_000);
    expect(r.get('batch')?.vsBaseline).toBe(5);
  });

  it('compares only the app rows with the Express peer', () => {
    const r = new Map(ratios(ROWS).map((x) => [x.id, x]));
    expect(r.get('baseline')?.vsPeer).toBeUndefined();
    expect(r.get('express')?.vsPeer).toBeUndefined();
    expect(r.get('rest')?.vsPeer).toBe(2.5);
    expect(r.get('batch')?.vsPeer).toBe(25);
  });

  it("divides the baseline's server CPU per request by each row's per item", () => {
    const r = new Map(ratios(ROWS).map((x) => [x.id, x]));
    expect(r.get('baseline')?.cpuVsBaseline).toBe(1);
    expect(r.get('rest')?.cpuVsBaseline).toBe(0.4);
    expect(r.get('batch')?.cpuVsBaseline).toBe(5);
    expect(ratios([row('baseline', 'baseline', 1), row('rest', 'app', 1)])[1]?.cpuVsBaseline).toBeUndefined();
  });

  it('leaves a ratio out when its reference row was not run', () => {
    const r = ratios([row('rest', 'app', 100)]);
    expect(r[0]).toMatchObject({ vsBaseline: undefined, vsPeer: undefined });
  });

  it('prints items/s and marks the items ratios in the table', () => {
    const text = formatReport(runInfo('npm run bench', { duration: 10, rounds: 5, warmup: 2, connections: 10, pipelining: 1 }), ROWS);
    expect(text).toContain('| batch | 200 ± 1 | 200,000 | 1.00 | 2.00 | 4000 | 5.00x ⁱ | 25.00x ⁱ | 5.00x ⁱ | 2,000 | 0 |');
    expect(text).toContain('| rest | 20,000 ± 1 |  | 1.00 | 2.00 | 50.0 | 0.50x | 2.50x | 0.40x | 200,000 | 0 |');
    expect(text).toContain('ⁱ items/s');
    expect(text).toContain('2 s warm-up + 10 s measured per target, in 5 slices of 2 s (the targets taking turns)');
  });

  it('says why there are no memory figures', () => {
    expect(formatMemory({ skipped: '/x/eurofxref-hist.zip is absent' })).toEqual([
      'memory: not measured (/x/eurofxref-hist.zip is absent)',
    ]);
  });
});
