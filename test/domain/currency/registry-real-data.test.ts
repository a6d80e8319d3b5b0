import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRegistry, quoteSpans, type CurrencyEntry } from '../../../src/domain/currency/registry';
import { listCrossRates } from '../../../src/domain/currency/rates-listing';
import { seriesEntries } from '../../../src/domain/currency/series';
import { csvLines } from '../../../src/domain/currency/series-export';
import { parseEcbFile, type Publication } from '../../../src/domain/ecb';
import { ApiError } from '../../../src/domain/errors';
import { createCurrencyServices } from '../../../src/services/currency';
import { sharedDataPresent } from '../../helpers/shared-data';
import { tableRates } from '../../helpers/table-rates';
import { parseCsv } from './csv-reader';
import { seededRandom as random } from '../../helpers/random';

// The real ECB history lives outside the project (../shared/ecb); it is read, never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);

/**
 * The oracle, independent of src/domain/decimal.ts: BigInt long division of two published decimal
 * strings, printed by the contract's unrounded rule (exact within 40 significant digits, else
 * half-even to 40 significant digits, trailing zeros dropped).
 */
function fraction(text: string): [bigint, bigint] {
  const [int, frac = ''] = text.split('.');
  return [BigInt(int! + frac), 10n ** BigInt(frac.length)];
}

function oracleQuotient(num: bigint, den: bigint): string {
  // Scale so that the integer quotient has at least 41 digits, then round half-even to 40 digits.
  let shift = 0n;
  while (num * 10n ** shift < den * 10n ** 40n) shift += 1n;
  let q = (num * 10n ** shift) / den;
  const r = (num * 10n ** shift) % den;
  let extra = BigInt(q.toString().length - 40); // digits past the 40th
  if (extra > 0n) {
    const cut = 10n ** extra;
    const low = q % cut;
    q /= cut;
    // The real remainder of q is (low·den + r) / (cut·den): compare it with one half.
    const twice = 2n * (low * den + r);
    const whole = cut * den;
    if (twice > whole || (twice === whole && q % 2n === 1n)) q += 1n;
  } else extra = 0n;
  if (q.toString().length > 40) {
    // Rounding carried into a 41st digit (…999 → 1000…): drop the trailing zero it made.
    q /= 10n;
    extra += 1n;
  }
  const places = Number(shift - extra);
  let digits = q.toString();
  if (places <= 0) return digits + '0'.repeat(-places);
  digits = digits.padStart(places + 1, '0');
  const text = `${digits.slice(0, -places)}.${digits.slice(-places)}`.replace(/0+$/, '').replace(/\.$/, '');
  return text;
}

describe('the BigInt oracle of these checks', () => {
  it.each([
    [1n, 3n, '0.3333333333333333333333333333333333333333'],
    [2n, 1n, '2'],
    [10811n, 100n, '108.11'],
    [2n, 3n, '0.6666666666666666666666666666666666666667'],
    // 40 nines then a 5: rounds up and carries into a 41st digit.
    [10n ** 41n - 5n, 10n ** 41n, '1'],
    [10n ** 50n, 7n, '1428571428571428571428571428571428571429' + '0'.repeat(10)],
  ])('%s/%s prints %s', (num, den, expected) => {
    expect(oracleQuotient(num, den)).toBe(expected);
  });
});

const rateOf = (pub: Publication, code: string): string => (code === 'EUR' ? '1' : pub.rates[code]!);

describe.skipIf(!PRESENT)('the currencies registry and series against the real ECB history', () => {
  let history: Publication[];
  let registry: CurrencyEntry[];
  const entry = (code: string): CurrencyEntry => registry.find((e) => e.code === code)!;

  beforeAll(() => {
    history = parseEcbFile(readFileSync(join(DIR, 'eurofxref-hist.zip')), 'eurofxref-hist.zip');
    registry = buildRegistry(quoteSpans(history));
  });

  it('computes the first and last quote of each currency from the history', () => {
    expect(entry('RUB')).toMatchObject({ firstDate: '2005-04-01', lastDate: '2022-03-01', status: 'retired', successor: null });
    expect(entry('HRK')).toMatchObject({ firstDate: '2005-04-01', lastDate: '2022-12-30', status: 'retired' });
    expect(entry('BGN')).toMatchObject({ firstDate: '2000-07-19', lastDate: '2025-12-31', status: 'retired' });
    expect(entry('ROL')).toMatchObject({ lastDate: '2005-06-30', successor: { successor: 'RON', rate: '10000' } });
    expect(entry('RON')).toMatchObject({ firstDate: '2005-07-01', status: 'active' });
    expect(entry('TRL')).toMatchObject({ lastDate: '2004-12-31', successor: { successor: 'TRY', rate: '1000000' } });
    expect(entry('TRY')).toMatchObject({ firstDate: '2005-01-03', status: 'active' });
    expect(entry('ILS').firstDate).toBe('2011-01-03');
    expect(entry('EUR')).toMatchObject({ firstDate: '1999-01-04', lastDate: '2026-04-13', status: 'active' });
  });

  it('dates the original currencies from 1999-01-04, and marks active exactly those of the newest publication', () => {
    const firstDay = Object.keys(history[0]!.rates);
    expect(firstDay).toHaveLength(27);
    for (const code of firstDay) expect(entry(code).firstDate, code).toBe('1999-01-04');
    const active = registry.filter((e) => e.status === 'active').map((e) => e.code);
    expect(new Set(active)).toEqual(new Set(['EUR', ...Object.keys(history.at(-1)!.rates)]));
    // 42 the ECB quoted, and the 12 the euro replaced before the ECB quoted them (1999's eleven, GRD).
    expect(registry).toHaveLength(54);
    expect(entry('DEM')).toMatchObject({
      firstDate: null,
      lastDate: null,
      status: 'retired',
      minorUnits: 2,
      successor: { successor: 'EUR', rate: '1.95583', since: '1999-01-01' },
    });
  });

  it('carries the fixed euro rate of HRK: 7.5345 (written 7.53450)', () => {
    const hrk = entry('HRK').successor!;
    expect({ successor: hrk.successor, since: hrk.since, rate: Number(hrk.rate) }).toEqual({
      successor: 'EUR',
      since: '2023-01-01',
      rate: 7.5345,
    });
    for (const code of ['CYP', 'MTL', 'SIT', 'SKK', 'EEK', 'LVL', 'LTL', 'HRK', 'BGN']) {
      const { successor, since } = entry(code).successor!;
      expect(successor, code).toBe('EUR');
      expect(entry(code).lastDate! < since, code).toBe(true);
    }
  });

  it('gives cross rates equal to the exact quotient for 200 random bases and days', () => {
    const next = random(20260413);
    const noRate = (code: string, param: string) => new ApiError('RATE_NOT_FOUND', `no ${code}.`, { param });
    for (let i = 0; i < 200; i++) {
      const pub = history[Math.floor(next() * history.length)]!;
      const codes = ['EUR', ...Object.keys(pub.rates)];
      const base = codes[Math.floor(next() * codes.length)]!;
      const listing = listCrossRates(pub, { base, decimals: undefined }, noRate);
      expect(Object.keys(listing.rates).sort()).toEqual([...codes].sort());
      for (const code of codes) {
        const [cn, cd] = fraction(rateOf(pub, code));
        const [bn, bd] = fraction(rateOf(pub, base));
        const expected = base === 'EUR' ? rateOf(pub, code) : oracleQuotient(cn * bd, cd * bn);
        expect(listing.rates[code], `${pub.date} ${code}/${base}`).toBe(expected);
      }
    }
  });

  it('gives monthly means equal to the exact mean of the month’s publications', () => {
    const next = random(7);
    for (let i = 0; i < 24; i++) {
      const month = history[Math.floor(next() * history.length)]!.date.slice(0, 7);
      const pubs = history.filter((pub) => pub.date.startsWith(month));
      const base = ['EUR', 'USD', 'JPY', 'GBP', 'CHF'][i % 5]!;
      const codes = Object.keys(pubs[0]!.rates).filter((code) => code !== base && pubs.every((pub) => code in pub.rates));
      const [mean] = [...seriesEntries(pubs, { base, codes, group: 'month' })];
      expect(mean).toMatchObject({ period: month, start: pubs[0]!.date, end: pubs.at(-1)!.date, publications: pubs.length });
      for (const code of codes) {
        // Σ c_i/b_i over the month, as one fraction, then / n.
        let num = 0n;
        let den = 1n;
        for (const pub of pubs) {
          const [cn, cd] = fraction(rateOf(pub, code));
          const [bn, bd] = fraction(rateOf(pub, base));
          num = num * (cd * bn) + cn * bd * den;
          den *= cd * bn;
        }
        expect(mean!.rates[code], `${month} ${code}/${base}`).toBe(oracleQuotient(num, den * BigInt(pubs.length)));
      }
    }
  });

  it('exports ten years of USD and JPY as CSV that parses back to the published values', async () => {
    const currency = createCurrencyServices(tableRates(history), () => new Date('2026-04-14T12:00:00Z'));
    const answer = await currency.series.series({ start: '2016-04-14', end: '2026-04-13', symbols: 'USD,JPY' }, 'developer');
    expect(answer).toMatchObject({ start: '2016-04-14', end: '2026-04-13', nextCursor: null });
    const rows = parseCsv([...csvLines(answer.entries(), answer)].join(''));
    const pubs = history.filter((pub) => pub.date >= '2016-04-14');
    expect(rows[0]).toEqual(['date', 'base', 'USD', 'JPY']);
    expect(rows).toHaveLength(pubs.length + 1);
    rows.slice(1).forEach((row, i) => expect(row).toEqual([pubs[i]!.date, 'EUR', pubs[i]!.rates.USD, pubs[i]!.rates.JPY]));
    // The registry through the service is the one computed directly, each quoted currency with the ECB as its source.
    expect(await currency.registry.listCurrencies()).toEqual(
      registry.map((e) => ({ ...e, sources: e.firstDate === null ? [] : [{ source: 'ecb', first: e.firstDate, last: e.lastDate }] })),
    );
  });
});
