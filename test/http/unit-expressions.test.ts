import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEcbFile } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';
import { tableRates } from '../helpers/table-rates';

/**
 * Unit expressions through the real server (GET and POST /v1/convert, a batch, GraphQL `convert`),
 * against the real ECB history and the reference catalogue, both read from ../shared (never copied
 * in). The expected values are recomputed here, independently of src: the catalogue's reduced
 * fractions and the rates as the CSV prints them, multiplied as BigInt fractions, printed by the
 * contract's rules (exact within 40 significant digits, else half-even to 40; with `decimals`,
 * rounded once with the mode, exactly that many places).
 */
const ECB = resolve(process.cwd(), '../shared/ecb');
const CATALOGUE = resolve(process.cwd(), '../shared/units/catalogue.json');
const PRESENT = sharedDataPresent(ECB) && sharedDataPresent(CATALOGUE);

/** A day after the last publication of the history (2026-04-13): a Tuesday, a TARGET business day. */
const NOW = new Date('2026-07-07T10:00:00Z');
const LATEST = '2026-04-13';

// --- the oracle: fractions of BigInts ---

interface Fraction {
  n: bigint;
  d: bigint;
}
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
function fraction(n: bigint, d: bigint): Fraction {
  const sign = d < 0n ? -1n : 1n;
  const g = gcd(n, d) || 1n;
  return { n: (sign * n) / g, d: (sign * d) / g };
}
const times = (a: Fraction, b: Fraction) => fraction(a.n * b.n, a.d * b.d);
const over = (a: Fraction, b: Fraction) => fraction(a.n * b.d, a.d * b.n);
const power = (a: Fraction, e: number): Fraction => {
  const k = BigInt(Math.abs(e));
  return e >= 0 ? fraction(a.n ** k, a.d ** k) : fraction(a.d ** k, a.n ** k);
};
/** "12.5", "-3", or "5/9". */
function parse(text: string): Fraction {
  if (text.includes('/')) {
    const [n, d] = text.split('/');
    return fraction(BigInt(n!), BigInt(d!));
  }
  const [int, frac = ''] = text.split('.');
  return fraction(BigInt(int! + frac), 10n ** BigInt(frac.length));
}

type Mode = 'HALF_UP' | 'HALF_EVEN' | 'DOWN' | 'UP' | 'FLOOR' | 'CEILING';

/** |x| rounded to `places` (≥ 0) places by `mode`, printed with exactly that many places. */
function roundTo(x: Fraction, places: number, mode: Mode): string {
  const negative = x.n < 0n;
  const scaled = (negative ? -x.n : x.n) * 10n ** BigInt(places);
  let q = scaled / x.d;
  const r = scaled % x.d;
  const up =
    mode === 'UP'
      ? r > 0n
      : mode === 'DOWN'
        ? false
        : mode === 'CEILING'
          ? !negative && r > 0n
          : mode === 'FLOOR'
            ? negative && r > 0n
            : mode === 'HALF_UP'
              ? 2n * r >= x.d
              : 2n * r > x.d || (2n * r === x.d && q % 2n === 1n);
  if (up) q += 1n;
  let digits = q.toString();
  if (places > 0) {
    digits = digits.padStart(places + 1, '0');
    digits = `${digits.slice(0, -places)}.${digits.slice(-places)}`;
  }
  return negative && q !== 0n ? `-${digits}` : digits;
}

function format(x: Fraction, decimals?: number, mode: Mode = 'HALF_UP'): string {
  if (decimals !== undefined) return roundTo(x, decimals, mode);
  if (x.n === 0n) return '0';
  // The exponent of the leading digit, then half-even at the 40th significant digit.
  const a = x.n < 0n ? -x.n : x.n;
  let e: number;
  if (a >= x.d) e = (a / x.d).toString().length - 1;
  else {
    e = -1;
    for (let m = a * 10n; m < x.d; m *= 10n) e -= 1;
  }
  const places = 39 - e;
  expect(places, 'the cases here have at most 40 integer digits').toBeGreaterThanOrEqual(0);
  const text = roundTo(x, places, 'HALF_EVEN');
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

// --- the reference data ---

/** Reduced fractions of the reference catalogue, by unit id (the irrational radian and milliradian have none). */
function catalogueFactors(): Map<string, Fraction> {
  const catalogue = JSON.parse(readFileSync(CATALOGUE, 'utf8')) as { units: { id: string; factor_fraction?: string }[] };
  return new Map(catalogue.units.flatMap((u) => (u.factor_fraction === undefined ? [] : [[u.id, parse(u.factor_fraction)] as const])));
}

/** The CSV's rows by date, as printed ("N/A" left out). */
function csvRates(): Map<string, Record<string, string>> {
  const [header, ...rows] = readFileSync(join(ECB, 'eurofxref-hist.csv'), 'utf8').trim().split('\n');
  const codes = header!.split(',').slice(1);
  const byDate = new Map<string, Record<string, string>>();
  for (const row of rows) {
    const [date, ...cells] = row.split(',');
    const rates: Record<string, string> = {};
    cells.forEach((cell, i) => {
      if (codes[i] && cell !== '' && cell !== 'N/A') rates[codes[i]!] = cell;
    });
    byDate.set(date!, rates);
  }
  return byDate;
}

/**
 * One expression case: what is sent, and the expression written out as catalogue ids (or currency
 * codes) with exponents. The categories used here (length, mass, time, volume, area, energy, power,
 * force, data, temperature) have SI-coherent base units, so a product of catalogue factors is the
 * expression's factor.
 */
interface Case {
  value: string;
  from: string;
  to: string;
  fromTerms: [string, number][];
  toTerms: [string, number][];
  canonical: [string, string];
  category: string;
  date?: string;
  /** The publication the date resolves to (the latest on or before it). */
  publication?: string;
  /** Why an earlier day's publication answers, when the date has none of its own. */
  reason?: 'weekend' | 'not-yet-published';
  decimals?: number;
  rounding?: Mode;
}

const CASES: Case[] = [
  {
    value: '9.80665',
    from: 'm/s²',
    to: 'ft/s²',
    fromTerms: [
      ['meter', 1],
      ['second', -2],
    ],
    toTerms: [
      ['foot', 1],
      ['second', -2],
    ],
    canonical: ['meter/second^2', 'foot/second^2'],
    category: 'derived',
  },
  {
    value: '12',
    from: 'kg*m/s^2',
    to: 'lbf',
    fromTerms: [
      ['kilogram', 1],
      ['meter', 1],
      ['second', -2],
    ],
    toTerms: [['pound_force', 1]],
    canonical: ['kilogram*meter/second^2', 'pound_force'],
    category: 'force',
  },
  {
    value: '3.6',
    from: 'kW*h',
    to: 'MJ',
    fromTerms: [
      ['kilowatt', 1],
      ['hour', 1],
    ],
    toTerms: [['megajoule', 1]],
    canonical: ['hour*kilowatt', 'megajoule'],
    category: 'energy',
  },
  {
    value: '1.5',
    from: 'GB/s',
    to: 'MB/min',
    fromTerms: [
      ['gigabyte', 1],
      ['second', -1],
    ],
    toTerms: [
      ['megabyte', 1],
      ['minute', -1],
    ],
    canonical: ['gigabyte/second', 'megabyte/minute'],
    category: 'derived',
  },
  {
    value: '7.2',
    from: 'L/km',
    to: 'gal/mi',
    fromTerms: [
      ['liter', 1],
      ['kilometer', -1],
    ],
    toTerms: [
      ['gallon_us', 1],
      ['mile', -1],
    ],
    canonical: ['liter/kilometer', 'gallon_us/mile'],
    category: 'area',
    decimals: 6,
    rounding: 'HALF_EVEN',
  },
  {
    value: '4186',
    from: 'J/(kg*K)',
    to: 'BTU/(lb*°R)',
    fromTerms: [
      ['joule', 1],
      ['kilogram', -1],
      ['kelvin', -1],
    ],
    toTerms: [
      ['btu', 1],
      ['pound', -1],
      ['rankine', -1],
    ],
    canonical: ['joule/(kelvin*kilogram)', 'btu/(pound*rankine)'],
    category: 'derived',
  },
  {
    value: '-2.5',
    from: 'm^3/s',
    to: 'ft³/min',
    fromTerms: [
      ['meter', 3],
      ['second', -1],
    ],
    toTerms: [
      ['foot', 3],
      ['minute', -1],
    ],
    canonical: ['meter^3/second', 'foot^3/minute'],
    category: 'derived',
    decimals: 3,
    rounding: 'FLOOR',
  },
  // Currencies on historical dates: a Saturday after a Good Friday, a Saturday, a Monday.
  {
    value: '0.25',
    from: 'EUR/kWh',
    to: 'USD/MWh',
    fromTerms: [
      ['EUR', 1],
      ['kilowatt_hour', -1],
    ],
    toTerms: [
      ['USD', 1],
      ['megawatt_hour', -1],
    ],
    canonical: ['EUR/kilowatt_hour', 'USD/megawatt_hour'],
    category: 'derived',
    date: '2024-03-30',
    publication: '2024-03-28',
    reason: 'weekend',
  },
  {
    value: '3.459',
    from: 'USD/gal',
    to: 'EUR/L',
    fromTerms: [
      ['USD', 1],
      ['gallon_us', -1],
    ],
    toTerms: [
      ['EUR', 1],
      ['liter', -1],
    ],
    canonical: ['USD/gallon_us', 'EUR/liter'],
    category: 'derived',
    date: '2019-06-15',
    publication: '2019-06-14',
    reason: 'weekend',
  },
  {
    value: '1500',
    from: 'JPY/m^2',
    to: 'GBP/ft²',
    fromTerms: [
      ['JPY', 1],
      ['meter', -2],
    ],
    toTerms: [
      ['GBP', 1],
      ['foot', -2],
    ],
    canonical: ['JPY/meter^2', 'GBP/foot^2'],
    category: 'derived',
    date: '2008-09-15',
    publication: '2008-09-15',
    decimals: 4,
    rounding: 'UP',
  },
];

describe.skipIf(!PRESENT)('unit expressions through the server, against the reference catalogue and the real ECB history', () => {
  let t: TestApp;
  let developer: string;
  let free: string;
  let factors: Map<string, Fraction>;
  let history: Map<string, Record<string, string>>;

  beforeAll(async () => {
    factors = catalogueFactors();
    history = csvRates();
    // The server reads the history through the project's own parser; the oracle reads the CSV.
    const publications = parseEcbFile(readFileSync(join(ECB, 'eurofxref-hist.zip')), 'eurofxref-hist.zip');
    t = await createTestApp({ KEY_RATE_LIMIT: '100000' }, { rates: tableRates(publications), clock: () => NOW });
    developer = await t.createKey('developer');
    free = await t.createKey('free');
  }, 60_000);
  afterAll(() => t?.close());

  /** The exact factor of terms: units by the catalogue, a currency as 1/rate euros. */
  const factorOf = (terms: [string, number][], rates: Record<string, string> | undefined): Fraction =>
    terms.reduce((product, [name, exponent]) => {
      let factor = factors.get(name);
      if (factor === undefined) {
        const rate = name === 'EUR' ? '1' : rates?.[name];
        expect(rate, `a rate for ${name}`).toBeDefined();
        factor = over(parse('1'), parse(rate!));
      }
      return times(product, power(factor, exponent));
    }, parse('1'));

  const expected = (c: Case) => {
    const rates = c.publication === undefined ? undefined : history.get(c.publication);
    if (c.publication !== undefined) expect(rates, `the CSV has ${c.publication}`).toBeDefined();
    const exact = over(times(parse(c.value), factorOf(c.fromTerms, rates)), factorOf(c.toTerms, rates));
    const answer: Record<string, unknown> = {
      input: { value: c.value, unit: c.canonical[0] },
      result: { value: format(exact, c.decimals, c.rounding), unit: c.canonical[1] },
      category: c.category,
    };
    if (rates !== undefined) {
      const codes = [...new Set([...c.fromTerms, ...c.toTerms].map(([name]) => name).filter((name) => !factors.has(name)))].sort();
      const money = over(
        factorOf(
          c.fromTerms.filter(([n]) => codes.includes(n)),
          rates,
        ),
        factorOf(
          c.toTerms.filter(([n]) => codes.includes(n)),
          rates,
        ),
      );
      answer['exchangeRate'] = {
        date: c.publication,
        source: 'ecb',
        value: format(money),
        rates: Object.fromEntries(codes.map((code) => [code, code === 'EUR' ? '1' : rates[code]!])),
        fixed: [],
        // Without a date the day asked for is today in Berlin; the history held stops on 2026-04-13,
        // 59 publications behind the calendar on 2026-07-07: stale.
        resolved:
          c.date === undefined
            ? { requested: '2026-07-07', publication: c.publication, carriedForward: true, reason: 'stale', missingPublications: 59 }
            : {
                requested: c.date,
                publication: c.publication,
                carriedForward: c.reason !== undefined,
                reason: c.reason ?? null,
                missingPublications: null,
              },
      };
    }
    return answer;
  };

  const args = (c: Case) => ({
    value: c.value,
    from: c.from,
    to: c.to,
    ...(c.date === undefined ? {} : { date: c.date }),
    ...(c.decimals === undefined ? {} : { decimals: c.decimals }),
    ...(c.rounding === undefined ? {} : { rounding: c.rounding }),
  });
  const query = (c: Case) => new URLSearchParams(Object.entries(args(c)).map(([k, v]) => [k, String(v)])).toString();
  const GRAPHQL = `query($value: Decimal!, $from: String!, $to: String!, $decimals: Int, $rounding: Rounding, $date: Date) {
    convert(value: $value, from: $from, to: $to, decimals: $decimals, rounding: $rounding, date: $date) {
      input { value unit } result { value unit } category exchangeRate { date source value rates fixed { code } resolved { requested publication carriedForward reason missingPublications } }
    }
  }`;

  it('has three cases with currencies on historical dates among its ten', () => {
    expect(CASES).toHaveLength(10);
    expect(CASES.filter((c) => c.date !== undefined && c.publication !== undefined)).toHaveLength(3);
  });

  it.each(CASES.map((c) => [`${c.value} ${c.from} → ${c.to}${c.date ? ` on ${c.date}` : ''}`, c] as const))(
    '%s: GET, POST, a batch and GraphQL give the exact value',
    async (_, c) => {
      const want = expected(c);
      const get = await t.call('GET', `/v1/convert?${query(c)}`, { key: developer });
      expect(get.status, JSON.stringify(get.body)).toBe(200);
      expect(get.body.data).toEqual(want);
      const post = await t.call('POST', '/v1/convert', { key: developer, body: args(c) });
      expect(post.body).toEqual(get.body);
      const graphql = await t.graphql(GRAPHQL, args(c), developer);
      expect(graphql.body.errors).toBeUndefined();
      expect(graphql.body.data.convert).toEqual({ exchangeRate: null, ...want });
    },
  );

  it('answers all ten in one batch, each as GET does, and charges ten conversions', async () => {
    const key = await t.createKey('developer');
    const res = await t.call('POST', '/v1/batch', { key, body: { items: CASES.map(args) } });
    expect(res.status).toBe(200);
    expect(res.body.data.results).toEqual(CASES.map((c) => ({ kind: 'unit', data: expected(c) })));
    expect(res.body.data).toMatchObject({ succeeded: 10, failed: 0 });
    expect(res.headers.get('x-quota-remaining')).toBe(String(Number(res.headers.get('x-quota-limit')) - 10));
    const graphql = await t.graphql(
      'query($items: [BatchItemInput!]!) { batch(items: $items) { results { ... on BatchSuccess { data { ... on Conversion { result { value unit } exchangeRate { date value resolved { requested carriedForward } } } } } } } }',
      { items: CASES.map(args) },
      key,
    );
    expect(graphql.body.data.batch.results.map((r: any) => r.data)).toEqual(
      CASES.map((c) => {
        const want = expected(c) as {
          result: unknown;
          exchangeRate?: { date: string; value: string; resolved: { requested: string; carriedForward: boolean } };
        };
        const rate = want.exchangeRate;
        return {
          result: want.result,
          exchangeRate:
            rate === undefined
              ? null
              : {
                  date: rate.date,
                  value: rate.value,
                  resolved: { requested: rate.resolved.requested, carriedForward: rate.resolved.carriedForward },
                },
        };
      }),
    );
  });

  it('a Saturday is carried forward from the Friday publication, alike through GET, POST, a batch and GraphQL', async () => {
    const c = CASES[8]!; // 2019-06-15, a Saturday
    const resolved = {
      requested: '2019-06-15',
      publication: '2019-06-14',
      carriedForward: true,
      reason: 'weekend',
      missingPublications: null,
    };
    const get = await t.call('GET', `/v1/convert?${query(c)}`, { key: developer });
    expect(get.body.data.exchangeRate.resolved).toEqual(resolved);
    const post = await t.call('POST', '/v1/convert', { key: developer, body: args(c) });
    expect(post.body.data.exchangeRate.resolved).toEqual(resolved);
    const batch = await t.call('POST', '/v1/batch', { key: developer, body: { items: [args(c)] } });
    expect(batch.body.data.results[0].data.exchangeRate.resolved).toEqual(resolved);
    const graphql = await t.graphql(GRAPHQL, args(c), developer);
    expect(graphql.body.data.convert.exchangeRate.resolved).toEqual(resolved);
    // The currency route says the same of the same day.
    const currency = await t.call('POST', '/v1/currency/convert', {
      key: developer,
      body: { value: '1', from: 'USD', to: 'EUR', date: '2019-06-15' },
    });
    expect(currency.body.data.rate.resolved).toEqual(resolved);
  });

  it('rounds once: decimals and every mode on the exact value, not on its 40-digit print', async () => {
    const c = CASES[8]!; // USD/gal → EUR/L: a value that does not terminate
    for (const rounding of ['HALF_UP', 'HALF_EVEN', 'DOWN', 'UP', 'FLOOR', 'CEILING'] as const) {
      for (const decimals of [0, 3, 12, 39, 40]) {
        const res = await t.call('POST', '/v1/convert', { key: developer, body: { ...args(c), decimals, rounding } });
        expect(res.body.data.result.value, `${decimals} ${rounding}`).toBe(
          (expected({ ...c, decimals, rounding }).result as { value: string }).value,
        );
      }
    }
  });

  it('charges one conversion for an expression, and nothing for a refused one', async () => {
    const key = await t.createKey('developer');
    const first = await t.call('GET', `/v1/convert?${query(CASES[7]!)}`, { key });
    const remaining = Number(first.headers.get('x-quota-remaining'));
    expect(remaining).toBe(Number(first.headers.get('x-quota-limit')) - 1);
    const refused = await t.call('GET', '/v1/convert?value=1&from=km%2Fh&to=kg%2Fs', { key });
    expect(refused.status).toBe(400);
    const again = await t.call('GET', `/v1/convert?${query(CASES[0]!)}`, { key });
    expect(Number(again.headers.get('x-quota-remaining'))).toBe(remaining - 1);
  });

  it('keeps plain catalogue conversions as they were: no exchangeRate, the catalogue ids', async () => {
    const res = await t.call('GET', '/v1/convert?value=100&from=km%2Fh&to=m%2Fs', { key: developer });
    expect(res.body).toEqual({
      data: {
        input: { value: '100', unit: 'kilometer_per_hour' },
        result: { value: '27.77777777777777777777777777777777777778', unit: 'meter_per_second' },
        category: 'speed',
      },
    });
  });

  describe('refusals, with the same answer through REST and GraphQL', () => {
    const refusal = async (key: () => string, request: Record<string, unknown>) => {
      const rest = await t.call('POST', '/v1/convert', { key: key(), body: request });
      const get = await t.call(
        'GET',
        `/v1/convert?${new URLSearchParams(Object.entries(request).map(([k, v]) => [k, String(v)])).toString()}`,
        { key: key() },
      );
      const graphql = await t.graphql(GRAPHQL, request, key());
      const batch = await t.call('POST', '/v1/batch', { key: key(), body: { items: [request] } });
      expect(get.body.error).toEqual({ ...rest.body.error, requestId: get.body.error.requestId });
      expect(graphql.body.errors[0].extensions.code).toBe(rest.body.error.code);
      expect(batch.body.data.results[0].error).toMatchObject({ code: rest.body.error.code, message: rest.body.error.message });
      return { status: rest.status, ...rest.body.error };
    };

    it('km/h → kg is INCOMPATIBLE_UNITS as before, and an expression names both dimensions', async () => {
      expect(await refusal(() => free, { value: '1', from: 'km/h', to: 'kg' })).toMatchObject({
        status: 400,
        code: 'INCOMPATIBLE_UNITS',
        param: 'to',
        // Two catalogue units: refused by their categories, as before, and by their dimensions.
        message: 'Cannot convert speed (kilometer_per_hour) to mass (kilogram): speed is length·time⁻¹, mass is mass.',
      });
      expect(await refusal(() => free, { value: '1', from: 'km/s', to: 'kg' })).toMatchObject({
        code: 'INCOMPATIBLE_UNITS',
        message: "Cannot convert 'km/s' to 'kg': 'km/s' is length·time⁻¹, 'kg' is mass.",
      });
      expect((await refusal(() => free, { value: '1', from: 'EUR/kWh', to: 'USD/kg' })).message).toMatch(
        /'EUR\/kWh' is .*money.*, 'USD\/kg' is .*mass.*money/,
      );
    });

    it('a misspelt unit is UNKNOWN_UNIT naming it, with a suggestion', async () => {
      expect(await refusal(() => free, { value: '1', from: 'kilometr/h', to: 'm/s' })).toMatchObject({
        status: 400,
        code: 'UNKNOWN_UNIT',
        param: 'from',
        message: expect.stringMatching(/^Unit 'kilometr' in 'kilometr\/h' is not known \(did you mean kilometer\?\)/),
      });
    });

    it('a free key asking for a historical date is PLAN_REQUIRED; without a date it converts at the latest rates', async () => {
      expect(await refusal(() => free, args(CASES[7]!))).toMatchObject({ status: 403, code: 'PLAN_REQUIRED', param: 'date' });
      const latest = await t.call('POST', '/v1/convert', { key: free, body: { ...args(CASES[7]!), date: undefined } });
      expect(latest.body.data.exchangeRate.date).toBe(LATEST);
      expect(latest.body.data).toEqual(expected({ ...CASES[7]!, date: undefined, reason: undefined, publication: LATEST }));
      expect(latest.body.data.exchangeRate.resolved).toEqual({
        requested: '2026-07-07',
        publication: LATEST,
        carriedForward: true,
        reason: 'stale',
        missingPublications: 59,
      });
    });

    it('a huge exponent is a clear 400', async () => {
      expect(await refusal(() => free, { value: '1', from: 'm^99999', to: 'm' })).toMatchObject({
        status: 400,
        code: 'INVALID_REQUEST',
        param: 'from',
        message: expect.stringMatching(/exponents are integers from -12 to 12/),
      });
    });

    it('°C/min is refused with a word about temperature differences', async () => {
      const error = await refusal(() => free, { value: '1', from: '°C/min', to: 'K/s' });
      expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', param: 'from' });
      expect(error.message).toMatch(/temperature differences/);
    });

    it('a currency the euro replaced converts at its fixed rate from the day of the change, as the currency routes do', async () => {
      const act = 'Council Regulation (EC) No 2866/98, Article 1, as amended by Council Regulation (EU) 2022/1208';
      const request = { value: '75.345', from: 'HRK/kWh', to: 'EUR/kWh', date: '2023-06-01' };
      const rest = await t.call('POST', '/v1/convert', { key: developer, body: request });
      expect(rest.body.data).toMatchObject({
        result: { value: '10' },
        exchangeRate: {
          date: '2023-06-01',
          source: act,
          rates: { HRK: '7.5345', EUR: '1' },
          fixed: [{ successor: 'EUR', rate: '7.53450', since: '2023-01-01' }],
        },
      });
      const currency = await t.call('POST', '/v1/currency/convert', {
        key: developer,
        body: { value: '75.345', from: 'HRK', to: 'EUR', date: '2023-06-01' },
      });
      expect(currency.body.data.result.value).toBe(rest.body.data.result.value);
      // Before the change, the ECB's rate of the day; none quoted it after its last publication.
      const before = await t.call('POST', '/v1/convert', {
        key: developer,
        body: { value: '1', from: 'EUR/kWh', to: 'HRK/kWh', date: '2022-12-30' },
      });
      expect(before.body.data.exchangeRate).toMatchObject({ source: 'ecb', rates: { HRK: '7.5365' }, fixed: [] });
      expect(await refusal(() => developer, { value: '1', from: 'RUB/kWh', to: 'EUR/kWh', date: '2023-06-01' })).toMatchObject({
        status: 404,
        code: 'RATE_NOT_FOUND',
        param: 'from',
        message: 'RUB was last quoted on 2022-03-01; the ECB has not quoted it since.',
      });
    });

    it('a batch item needing a currency not quoted fails alone, with the same message', async () => {
      const res = await t.call('POST', '/v1/batch', {
        key: developer,
        body: { items: [args(CASES[8]!), { value: '1', from: 'RUB/kWh', to: 'EUR/kWh', date: '2023-06-01' }] },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.results[0]).toEqual({ kind: 'unit', data: expected(CASES[8]!) });
      expect(res.body.data.results[1].error).toMatchObject({
        code: 'RATE_NOT_FOUND',
        param: 'from',
        message: 'RUB was last quoted on 2022-03-01; the ECB has not quoted it since.',
      });
      expect(res.body.data).toMatchObject({ succeeded: 1, failed: 1 });
    });

    it('a date where no currency occurs is ignored, on any plan and in a batch item too', async () => {
      const request = { value: '1', from: 'm/s', to: 'km/h', date: '2024-03-28' };
      const rest = await t.call('POST', '/v1/convert', { key: free, body: request });
      expect(rest.body).toEqual({
        data: { input: { value: '1', unit: 'meter_per_second' }, result: { value: '3.6', unit: 'kilometer_per_hour' }, category: 'speed' },
      });
      const batch = await t.call('POST', '/v1/batch', {
        key: free,
        body: { items: [request, { ...request, from: 'm/s^2', to: 'ft/s^2' }] },
      });
      expect(batch.body.data).toMatchObject({ succeeded: 2, failed: 0 });
      expect(batch.body.data.results[0]).toEqual({ kind: 'unit', ...rest.body });
    });

    it('a day that does not exist is named as such, in REST, GraphQL and batch items', async () => {
      const request = { value: '1', from: 'EUR/kWh', to: 'USD/kWh', date: '2024-02-30' };
      const rest = await t.call('POST', '/v1/convert', { key: developer, body: request });
      const graphql = await t.graphql(GRAPHQL, request, developer);
      const batch = await t.call('POST', '/v1/batch', { key: developer, body: { items: [request] } });
      for (const error of [rest.body.error, graphql.body.errors[0], batch.body.data.results[0].error]) {
        expect(error.message).toMatch(/2024-02-30 does not exist: February 2024 has 29 days\.$/);
      }
      expect(rest.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'date' });
    });
  });
});
