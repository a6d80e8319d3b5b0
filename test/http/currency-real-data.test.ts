import { join, resolve } from 'node:path';
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUNDING_MODES } from '../../src/domain/decimal';
import type { Publication } from '../../src/domain/ecb';
import type { RatesService } from '../../src/services/currency/rates';
import { tempRates, type TempRates } from '../data/rates/helpers';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';

// The real ECB files live beside the project (../shared/ecb); they are read, never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);
if (!PRESENT) console.warn(`real-data currency tests skipped: ${DIR} not found`);

const NOW = new Date('2026-07-07T10:00:00Z');
/** decimal.js at 200 digits: an arithmetic independent of the service's BigInt rationals. */
const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN });
const MODE = {
  HALF_UP: D.ROUND_HALF_UP,
  HALF_EVEN: D.ROUND_HALF_EVEN,
  DOWN: D.ROUND_DOWN,
  UP: D.ROUND_UP,
  FLOOR: D.ROUND_FLOOR,
  CEILING: D.ROUND_CEIL,
} as const;

function oracle(value: string, fromRate: string, toRate: string, decimals: number | undefined, rounding: keyof typeof MODE): string {
  const exact = new D(value).times(toRate).div(fromRate);
  const text =
    decimals === undefined ? exact.toSignificantDigits(40, D.ROUND_HALF_EVEN).toFixed() : exact.toFixed(decimals, MODE[rounding]);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text;
}

describe.skipIf(!PRESENT)('currency conversion on the whole real ECB history', () => {
  let t: TestApp;
  let temp: TempRates;
  let rates: RatesService;
  let key: string;
  let publications: Publication[];

  beforeAll(async () => {
    temp = tempRates();
    rates = temp.service({ clock: () => NOW });
    await rates.importFile(join(DIR, 'eurofxref-hist.zip'));
    t = await createTestApp({ KEY_RATE_LIMIT: '1000000' }, { rates, clock: () => NOW });
    key = await t.createKey('business');
    const dates: string[] = [];
    for (let d = new Date('1999-01-04T00:00:00Z'); d <= new Date('2026-04-13T00:00:00Z'); d = new Date(d.getTime() + 86_400_000)) {
      const date = d.toISOString().slice(0, 10);
      if (rates.resolveDate(date) === date) dates.push(date);
    }
    publications = (await rates.loadPublications(dates)).filter((p): p is Publication => p !== undefined);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await rates.stop();
    temp.cleanup();
  });

  const convert = (body: Record<string, unknown>) => t.call('POST', '/v1/currency/convert', { key, body });

  it('matches an independent exact computation on random days, pairs, values and rounding modes', async () => {
    expect(publications).toHaveLength(6983);
    const value = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 12 })).map(([neg, digits, scale]) => {
      const text = digits.toString().padStart(scale + 1, '0');
      const point = scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
      return `${neg && digits !== 0n ? '-' : ''}${point}`;
    });
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: publications.length - 1 }),
        fc.nat(),
        fc.nat(),
        value,
        fc.option(fc.nat({ max: 12 }), { nil: undefined }),
        fc.constantFrom(...ROUNDING_MODES),
        async (dayIndex, a, b, amount, decimals, rounding) => {
          const publication = publications[dayIndex]!;
          const codes = ['EUR', ...Object.keys(publication.rates)];
          const [from, to] = [codes[a % codes.length]!, codes[b % codes.length]!];
          const res = await convert({ value: amount, from: from.toLowerCase(), to, decimals, rounding, date: publication.date });
          expect(res.status).toBe(200);
          const rateOf = (code: string) => (code === 'EUR' ? '1' : publication.rates[code]!);
          expect(res.body.data.result.value).toBe(oracle(amount, rateOf(from), rateOf(to), decimals, rounding));
          expect(res.body.data.rate).toEqual({
            date: publication.date,
            source: 'ecb',
            value: oracle('1', rateOf(from), rateOf(to), undefined, 'HALF_EVEN'),
            fixed: [],
            resolved: {
              requested: publication.date,
              publication: publication.date,
              carriedForward: false,
              reason: null,
              missingPublications: null,
            },
          });
        },
      ),
      { numRuns: 1000, seed: 20261121 },
    );
  });

  it.each([
    ['1999-01-04', 'USD', '1999-01-04', '1.1789'],
    ['1999-01-02', 'USD', undefined, undefined],
    ['2024-03-29', 'USD', '2024-03-28', undefined],
    ['2024-04-01', 'USD', '2024-03-28', undefined],
    ['2023-12-25', 'USD', '2023-12-22', undefined],
    ['2022-03-01', 'RUB', '2022-03-01', undefined],
    ['2022-03-02', 'RUB', undefined, undefined],
    ['2022-12-30', 'HRK', '2022-12-30', undefined],
    // From the euro's adoption the law's fixed rate answers, on the publication of the day asked.
    ['2023-01-02', 'HRK', '2023-01-02', '7.5345'],
    ['2025-12-31', 'BGN', '2025-12-31', undefined],
    ['2026-01-05', 'BGN', '2026-01-05', '1.95583'],
    ['2010-06-01', 'ISK', undefined, undefined],
  ])('on %s, EUR→%s uses the publication of %s (or RATE_NOT_FOUND)', async (date, code, used, rate) => {
    const res = await convert({ value: '1', from: 'EUR', to: code, date });
    if (used === undefined) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('RATE_NOT_FOUND');
      return;
    }
    expect(res.body.data.rate.date).toBe(used);
    if (rate) expect(res.body.data.result.value).toBe(rate);
  });

  it('lists 27 currencies and EUR on the first day', async () => {
    const res = await t.call('GET', '/v1/currency/rates?date=1999-01-04', { key });
    expect(Object.keys(res.body.data.rates)).toHaveLength(28);
    expect(res.body.data.rates.EUR).toBe('1');
  });
});
