import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Decimal from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEcbFile, type Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';
import { tableRates } from '../helpers/table-rates';
import { seededRandom as random } from '../helpers/random';

// The real ECB history lives beside the project (../shared/ecb); it is read, never copied in.
const DIR = resolve(process.cwd(), '../shared/ecb');
const PRESENT = sharedDataPresent(DIR);

const NOW = new Date('2026-04-14T12:00:00Z');
/** decimal.js at 200 digits: an arithmetic independent of the service's BigInt fractions. */
const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN });

/** The contract's unrounded rule: exact within 40 significant digits, else half-even to 40; no trailing zeros. */
const unrounded = (value: Decimal): string => value.toSignificantDigits(40, D.ROUND_HALF_EVEN).toFixed();

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe.skipIf(!PRESENT)('GET /v1/currency/rates and /v1/currencies on the whole real ECB history', () => {
  let t: TestApp;
  let key: string;
  let history: Publication[];

  beforeAll(async () => {
    history = parseEcbFile(readFileSync(join(DIR, 'eurofxref-hist.zip')), 'eurofxref-hist.zip');
    t = await createTestApp({ KEY_RATE_LIMIT: '1000000' }, { rates: tableRates(history), clock: () => NOW });
    key = await t.createKey('developer');
  }, 60_000);
  afterAll(() => t.close());

  it('gives rate(code) ÷ rate(base), exactly, for 200 random bases and days (weekends and holidays included)', async () => {
    const next = random(20261126);
    const first = Date.parse(`${history[0]!.date}T00:00:00Z`);
    const last = Date.parse(`${history.at(-1)!.date}T00:00:00Z`);
    let carried = 0;
    let withAmount = 0;
    for (let i = 0; i < 200; i++) {
      const day = isoDay(first + Math.floor(next() * ((last - first) / DAY + 1)) * DAY);
      // The publication in effect: the latest on or before the day.
      const pub = history.filter((p) => p.date <= day).at(-1)!;
      const codes = ['EUR', ...Object.keys(pub.rates)];
      const base = codes[Math.floor(next() * codes.length)]!;
      const amount = i % 3 === 0 ? `${Math.floor(next() * 1e6)}.${Math.floor(next() * 100)}` : undefined;
      const res = await t.call('GET', `/v1/currency/rates?date=${day}&base=${base.toLowerCase()}${amount ? `&amount=${amount}` : ''}`, {
        key,
      });
      expect(res.status, `${day} ${base}`).toBe(200);
      const data = res.body.data;
      expect(data).toMatchObject({ date: pub.date, base, source: 'ecb', amount: amount ?? null });
      expect(data.resolved).toMatchObject({ requested: day, publication: pub.date, carriedForward: day !== pub.date });
      expect(Object.keys(data.rates).sort()).toEqual([...codes].sort());
      const rateOf = (code: string) => new D(code === 'EUR' ? '1' : pub.rates[code]!);
      for (const code of codes) {
        const exact = rateOf(code)
          .div(rateOf(base))
          .times(amount ?? '1');
        // Base EUR without an amount: the ECB's strings as published (trailing zeros kept).
        const expected = base === 'EUR' && amount === undefined ? (code === 'EUR' ? '1' : pub.rates[code]!) : unrounded(exact);
        expect(data.rates[code], `${day} ${code}/${base}${amount ? ` × ${amount}` : ''}`).toBe(expected);
      }
      if (day !== pub.date) carried++;
      if (amount) withAmount++;
    }
    // Not vacuous: days without a publication and amounts were among the cases.
    expect(carried).toBeGreaterThan(20);
    expect(withAmount).toBeGreaterThan(50);
  }, 120_000);

  it('dates the registry from the history: RUB last 2022-03-01, HRK last 2022-12-30 with its fixed rate 7.5345', async () => {
    const rub = (await t.call('GET', '/v1/currencies/rub')).body.data;
    expect(rub).toMatchObject({ code: 'RUB', lastDate: '2022-03-01', status: 'retired', successor: null });
    const hrk = (await t.call('GET', '/v1/currencies/HRK')).body.data;
    expect(hrk).toMatchObject({
      code: 'HRK',
      lastDate: '2022-12-30',
      status: 'retired',
      successor: { successor: 'EUR', rate: '7.53450', since: '2023-01-01', kind: 'euro' },
    });
    expect(Number(hrk.successor.rate)).toBe(7.5345);
    const all = (await t.call('GET', '/v1/currencies')).body.data as {
      code: string;
      firstDate: string;
      lastDate: string;
      status: string;
    }[];
    // Every date as the history has it: the first and last publication that quotes the code.
    for (const entry of all) {
      const quoting = entry.code === 'EUR' ? history : history.filter((p) => p.rates[entry.code] !== undefined);
      expect([entry.firstDate, entry.lastDate], entry.code).toEqual([quoting[0]?.date ?? null, quoting.at(-1)?.date ?? null]);
      expect(entry.status, entry.code).toBe(entry.code === 'EUR' || history.at(-1)!.rates[entry.code] !== undefined ? 'active' : 'retired');
    }
  });

  it('answers RATE_NOT_FOUND with the last quoted day, and the fixed rate where the law set one', async () => {
    const hrk = await t.call('GET', '/v1/currency/rates?date=2023-01-02&symbols=USD,HRK', { key });
    expect(hrk.status).toBe(404);
    expect(hrk.body.error).toMatchObject({
      code: 'RATE_NOT_FOUND',
      param: 'symbols',
      message: 'HRK was last quoted on 2022-12-30; since 2023-01-01 1 EUR = 7.53450 HRK (irrevocable).',
    });
    const rub = await t.call('GET', '/v1/currency/rates?date=2022-03-02&base=RUB', { key });
    expect(rub.body.error).toMatchObject({
      code: 'RATE_NOT_FOUND',
      param: 'base',
      message: 'RUB was last quoted on 2022-03-01; the ECB has not quoted it since.',
    });
    const bgn = await t.call('GET', '/v1/currency/rates?symbols=BGN', { key });
    expect(bgn.body.error).toMatchObject({
      code: 'RATE_NOT_FOUND',
      param: 'symbols',
      message: 'BGN was last quoted on 2025-12-31; since 2026-01-01 1 EUR = 1.95583 BGN (irrevocable).',
    });
  });

  it('converts at the fixed rate the law set, from the day of the change, and the ECB rate before it', async () => {
    const bgn = await t.call('POST', '/v1/currency/convert', { key, body: { value: '1', from: 'EUR', to: 'BGN' } });
    expect(bgn.body.data).toMatchObject({
      result: { value: '1.95583' },
      rate: { source: expect.stringMatching(/^Council Regulation \(EC\) No 2866\/98/), fixed: [{ successor: 'EUR', rate: '1.95583' }] },
    });
    const hrk = await t.call('POST', '/v1/currency/convert', {
      key,
      body: { value: '75.345', from: 'HRK', to: 'EUR', date: '2024-01-05' },
    });
    expect(hrk.body.data).toMatchObject({
      result: { value: '10' },
      rate: { date: '2024-01-05', fixed: [{ successor: 'EUR', rate: '7.53450' }] },
    });
    const dem = await t.call('POST', '/v1/currency/convert', {
      key,
      body: { value: '100', from: 'DEM', to: 'USD', date: '2001-06-01', minorUnits: true },
    });
    // 100 / 1.95583 × 0.8478 (the ECB's USD of 2001-06-01) = 43.347…
    expect(dem.body.data).toMatchObject({
      result: { value: '43.35' },
      rate: { date: '2001-06-01', source: 'ecb; Council Regulation (EC) No 2866/98, Article 1' },
    });
    const beforeChange = await t.call('POST', '/v1/currency/convert', {
      key,
      body: { value: '1', from: 'EUR', to: 'HRK', date: '2022-12-30' },
    });
    expect(beforeChange.body.data).toMatchObject({ result: { value: '7.5365' }, rate: { source: 'ecb', fixed: [] } });
  });
});
