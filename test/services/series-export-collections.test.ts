import { describe, expect, it } from 'vitest';
import type { RatesReader } from '../../src/services/currency/rates';
import { createSeriesExports } from '../../src/services/series-exports';

/**
 * Streamed pages collected for the export cache while their clients read are bounded together on
 * an instance: slow readers, however many, hold at most what one page may be kept at.
 */
describe('what streamed pages collect for the export cache', () => {
  const exportsOf = (cacheBytes: number) =>
    createSeriesExports({
      rates: { knownCurrencies: () => new Set<string>(), latest: () => undefined } as unknown as RatesReader,
      series: { planSeries: () => undefined as never, answerSeries: async () => undefined as never },
      cacheBytes,
      slots: { perHolder: 2, perInstance: 32, memoryBytes: 1 << 30 },
    });

  it('is bounded for all the streams in flight together by half the cache, and given back', () => {
    const exports = exportsOf(4000);
    expect(exports.keepsUpTo).toBe(1000);
    expect(exports.collectsUpTo).toBe(2000);
    expect(exports.collect(1000)).toBe(true);
    expect(exports.collect(600)).toBe(true);
    // A third stream may collect only what the first two left.
    expect(exports.collect(500)).toBe(false);
    expect(exports.collect(400)).toBe(true);
    expect(exports.collect(1)).toBe(false);
    exports.collect(-600);
    expect(exports.collect(600)).toBe(true);
  });
});
