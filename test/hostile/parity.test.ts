import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BODY_LIMIT } from '../../src/http/routes';
import { createHostileApp, postGraphQL, show, type HostileApp } from './harness';
import { fieldArgs } from './arguments';
import { objectText } from './values';

/** Per property (five of them), each run one REST and one GraphQL request. */
const RUNS = 150;

let h: HostileApp;
beforeAll(async () => {
  h = await createHostileApp();
});
afterAll(async () => {
  h.slowest.print('REST or GraphQL request of a pair');
  await h.t.close();
});

const UNIT_ARGS = ['value', 'from', 'to', 'decimals', 'rounding'];
const CURRENCY_ARGS = [...UNIT_ARGS, 'date'];
const RESOLVED = 'resolved { requested publication carriedForward reason missingPublications }';
const FIXED = 'fixed { code successor rate since kind source }';
/** A currency pair or an expression with money has its exchangeRate; REST leaves it out when null. */
const CONVERSION = `{ input { value unit } result { value unit } category exchangeRate { date source value rates ${FIXED} ${RESOLVED} } }`;
const CURRENCY_CONVERSION =
  '{ input { value unit } result { value unit } rate { date source value fixed { code successor rate since kind source } resolved { requested publication carriedForward reason missingPublications } } }';
const RATES =
  '{ date base source amount rates resolved { requested publication carriedForward reason missingPublications } nextPublication { date expectedAt overdue missingPublications } }';
const CURRENCY =
  '{ code name localName { text language localized } numericCode minorUnits firstDate lastDate status sources { source first last } successor { code successor rate since kind source } }';
const RATES_ARGS = ['date', 'symbols', 'base', 'amount', 'decimals', 'rounding'];
const RATES_DECLARATIONS = '$date: Date, $symbols: [String!], $base: String, $amount: Decimal, $decimals: Int, $rounding: Rounding';
const BATCH = '{ results { ... on BatchSuccess { __typename } ... on BatchFailure { error { code } } } }';

/** The contract's code of a REST answer ("OK" for a 200), and its data. */
const restOutcome = (res: { status: number; body: any }) =>
  res.status === 200 ? { code: 'OK', data: res.body.data } : { code: res.body.error.code, data: undefined };
/** The code of the first GraphQL error ("OK" without errors), and the field's data, its null exchangeRate left out as REST leaves it out. */
const graphqlOutcome = (body: any, field: string) => {
  if (body.errors) return { code: body.errors[0].extensions.code, data: undefined };
  const data = body.data[field];
  if (data?.exchangeRate === null) delete data.exchangeRate;
  return { code: 'OK', data };
};

/**
 * /graphql takes bodies up to 64 KiB and POST /v1/batch up to 1 MiB, GET query strings have no
 * body at all: an input only one side refuses as too large is not a disagreement.
 */
const comparable = (variables: string) => fc.pre(variables.length < DEFAULT_BODY_LIMIT - 1024);

async function viaGraphQL(field: string, declarations: string, selection: string, variables: string) {
  const names = [...declarations.matchAll(/\$(\w+)/g)].map((m) => m[1]);
  const query = `query Parity(${declarations}) { ${field}(${names.map((n) => `${n}: $${n}`).join(', ')}) ${selection} }`;
  const body = `{"query":${JSON.stringify(query)},"variables":${variables}}`;
  const res = await h.slowest.time(
    () => `GraphQL ${field} ${show(variables)}`,
    () => postGraphQL(h.t, body, { 'content-type': 'application/json', authorization: `Bearer ${h.key}` }),
  );
  return graphqlOutcome(res.body, field);
}

async function viaRest(method: string, url: string, rawBody?: string) {
  const res = await h.slowest.time(
    () => `${method} ${show(url)} ${show(rawBody ?? '')}`,
    () =>
      h.t.call(method, url, { key: h.key, ...(rawBody === undefined ? {} : { rawBody, headers: { 'content-type': 'application/json' } }) }),
  );
  return restOutcome(res);
}

const UNIT_DECLARATIONS = '$value: Decimal!, $from: String!, $to: String!, $decimals: Int, $rounding: Rounding';
const CURRENCY_DECLARATIONS = `${UNIT_DECLARATIONS}, $date: Date`;
const SERIES_ARGS = ['start', 'end', 'base', 'symbols', 'group', 'cursor'];
const SERIES_DECLARATIONS = '$start: Date!, $end: Date, $base: String, $symbols: [String!], $group: String, $cursor: String';
const SERIES =
  '{ start end base group symbols nextCursor complete change { code start startRate end endRate change changePercent } entries { period start end publications rates partial { code publications } figures { code first last min max change changePercent } } }';

/** Only strings travel in a query string as they are; numbers (decimals) as their digits. Lone surrogates cannot be encoded. */
const wellFormed = (text: string) => text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD');
function queryEntries(entries: [string, unknown][]): [string, string | number][] {
  return entries.flatMap(([name, value]): [string, string | number][] => {
    if (typeof value === 'string' && name !== 'decimals') return [[name, wellFormed(value)]];
    if (typeof value === 'number' && name === 'decimals') return [[name, value]];
    return [];
  });
}

describe('the same conversion input gives the same answer through REST and GraphQL', () => {
  it('POST /v1/convert and convert: the same JSON as body and as variables', async () => {
    await fc.assert(
      fc.asyncProperty(fieldArgs('convert', UNIT_ARGS, 'json'), async (entries) => {
        const json = objectText(entries);
        comparable(json);
        const rest = await viaRest('POST', '/v1/convert', json);
        const graphql = await viaGraphQL('convert', UNIT_DECLARATIONS, CONVERSION, json);
        expect(graphql, `for ${show(json)}`).toEqual(rest);
      }),
      // A currency pair (its exchangeRate compared too), and a unit pair, always among the cases.
      {
        numRuns: RUNS,
        examples: [
          [
            [
              ['value', '0'],
              ['from', 'USD'],
              ['to', 'USD'],
            ],
          ],
          [
            [
              ['value', '12.5'],
              ['from', 'EUR/kWh'],
              ['to', 'USD/MWh'],
            ],
          ],
          [
            [
              ['value', '1'],
              ['from', 'mile'],
              ['to', 'km'],
            ],
          ],
        ],
      },
    );
  });

  it('GET /v1/convert and convert: a query string, raw `?` and `/` included, and variables', async () => {
    await fc.assert(
      fc.asyncProperty(
        fieldArgs('convert', UNIT_ARGS, 'json'),
        fc.boolean(),
        fc.constantFrom('', '?', '?x', '?decimals=99', '/..'),
        async (generated, raw, suffix) => {
          const entries = queryEntries(generated);
          // A `?` or `/` in the last value, sent unencoded: a second `?` must not cut the query string short.
          const last = entries.flatMap(([name], i) => (name === 'decimals' ? [] : [i])).at(-1);
          if (last !== undefined) entries[last] = [entries[last]![0], `${entries[last]![1]}${suffix}`];
          comparable(objectText(entries));
          const query = entries
            .map(([name, value]) => {
              const encoded = encodeURIComponent(String(value));
              return `${name}=${raw ? encoded.replace(/%3F/g, '?').replace(/%2F/g, '/') : encoded}`;
            })
            .join('&');
          const rest = await viaRest('GET', `/v1/convert?${query}`);
          const graphql = await viaGraphQL('convert', UNIT_DECLARATIONS, CONVERSION, objectText(entries));
          expect(graphql, `for ?${show(query)}`).toEqual(rest);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('POST /v1/currency/convert and convertCurrency', async () => {
    await fc.assert(
      fc.asyncProperty(fieldArgs('convertCurrency', CURRENCY_ARGS, 'json'), async (entries) => {
        const json = objectText(entries);
        comparable(json);
        const rest = await viaRest('POST', '/v1/currency/convert', json);
        const graphql = await viaGraphQL('convertCurrency', CURRENCY_DECLARATIONS, CURRENCY_CONVERSION, json);
        expect(graphql, `for ${show(json)}`).toEqual(rest);
      }),
      { numRuns: RUNS },
    );
  });

  it('GET /v1/currency/rates/series and rateSeries: a comma list in the query string is the GraphQL list', async () => {
    await fc.assert(
      fc.asyncProperty(fieldArgs('rateSeries', SERIES_ARGS, 'json'), async (generated) => {
        const entries = queryEntries(generated);
        const query = entries.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join('&');
        // REST's `symbols=USD, JPY` is GraphQL's ["USD", "JPY"]: the list the comma list spells.
        const variables = entries.map(([name, value]): [string, unknown] => [
          name,
          name === 'symbols'
            ? String(value)
                .split(',')
                .map((code) => code.trim())
            : value,
        ]);
        comparable(objectText(variables));
        const rest = await viaRest('GET', `/v1/currency/rates/series?${query}`);
        const graphql = await viaGraphQL('rateSeries', SERIES_DECLARATIONS, SERIES, objectText(variables));
        const { source: _source, ...data } = rest.data ?? {};
        expect(graphql, `for ?${show(query)}`).toEqual(rest.code === 'OK' ? { code: 'OK', data } : rest);
      }),
      { numRuns: RUNS },
    );
  });

  it('GET /v1/currency/rates and rates: symbols a comma list in the query string, a list in variables', async () => {
    await fc.assert(
      fc.asyncProperty(fieldArgs('rates', RATES_ARGS, 'text'), async (generated) => {
        const entries = queryEntries(
          generated.map(([name, value]) => [name, name === 'decimals' && /^\d{1,9}$/.test(String(value)) ? Number(value) : value]),
        );
        comparable(objectText(entries));
        const query = entries.map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`).join('&');
        // The same input as variables: the comma list split as REST splits it, its items trimmed.
        const variables = entries.map(([name, value]): [string, unknown] => [
          name,
          name === 'symbols'
            ? String(value)
                .split(',')
                .map((code) => code.trim())
            : value,
        ]);
        const rest = await viaRest('GET', `/v1/currency/rates${query === '' ? '' : `?${query}`}`);
        const graphql = await viaGraphQL('rates', RATES_DECLARATIONS, RATES, objectText(variables));
        expect(graphql, `for ?${show(query)}`).toEqual(rest);
      }),
      { numRuns: RUNS },
    );
  });

  it('GET /v1/currencies/:code and currency(code:)', async () => {
    await fc.assert(
      fc.asyncProperty(fieldArgs('currency', ['code'], 'text'), async (entries) => {
        const code = String(entries[0]?.[1] ?? '');
        fc.pre(code !== '' && code !== '.' && code !== '..' && !/[\uD800-\uDFFF]/u.test(code));
        // A code longer than GraphQL's body limit is refused as a body there (413): not the same question.
        comparable(objectText([['code', code]]));
        const rest = await viaRest('GET', `/v1/currencies/${encodeURIComponent(code)}`);
        const graphql = await viaGraphQL('currency', '$code: String!', CURRENCY, objectText([['code', code]]));
        expect(graphql, `for ${show(code)}`).toEqual(rest);
      }),
      { numRuns: RUNS },
    );
  });

  it('unit expressions, currencies and dates included: POST /v1/convert, GET /v1/convert and convert give the same answer', async () => {
    // Names the parser knows, a misspelt one, a lower-case code, an affine unit; operators and exponents in range and out of it.
    const names = fc.constantFrom(
      'm',
      'km',
      's',
      'h',
      'kg',
      'g',
      'L',
      'gal',
      'kWh',
      'MWh',
      'J',
      'N',
      'ft',
      'mi',
      'GB',
      'EUR',
      'USD',
      'JPY',
      'GBP',
      'RUB',
      'K',
      '°C',
      'kilometr',
      'usd',
      'km/h',
    );
    const expression = fc
      .array(fc.tuple(fc.constantFrom('*', '/', ' ', '·'), names, fc.constantFrom('', '', '^2', '^-1', '²', '^13')), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.map(([op, name, exponent], i) => `${i === 0 ? '' : op}${name}${exponent}`).join(''));
    const request = fc.record(
      {
        value: fc.constantFrom('1', '0.25', '-3.5', '1000000'),
        from: expression,
        to: expression,
        decimals: fc.nat({ max: 6 }),
        date: fc.constantFrom('2024-03-27', '2024-03-30', '2024-04-02', '2024-04-05', '1998-12-31'),
      },
      { requiredKeys: ['value', 'from', 'to'] },
    );
    const selection =
      '{ input { value unit } result { value unit } category exchangeRate { date source value rates fixed { code successor rate since kind source } resolved { requested publication carriedForward reason missingPublications } } }';
    // REST leaves a null exchangeRate out; GraphQL answers the selected field.
    const withoutNullRate = (outcome: { code: string; data: any }) =>
      outcome.data?.exchangeRate === null
        ? { ...outcome, data: Object.fromEntries(Object.entries(outcome.data).filter(([k]) => k !== 'exchangeRate')) }
        : outcome;
    await fc.assert(
      fc.asyncProperty(request, async (args) => {
        const json = JSON.stringify(args);
        const post = await viaRest('POST', '/v1/convert', json);
        const query = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, String(v)])).toString();
        const get = await viaRest('GET', `/v1/convert?${query}`);
        const graphql = await viaGraphQL('convert', `${UNIT_DECLARATIONS}, $date: Date`, selection, json);
        expect(get, `GET for ${show(json)}`).toEqual(post);
        expect(withoutNullRate(graphql), `GraphQL for ${show(json)}`).toEqual(post);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST /v1/batch and batch: the same code for the whole request, or for each item', async () => {
    const codes = (outcome: { code: string; data: any }) =>
      outcome.code !== 'OK' ? outcome.code : outcome.data.results.map((r: any) => r.error?.code ?? 'OK');
    await fc.assert(
      fc.asyncProperty(fieldArgs('batch', ['items'], 'json'), async (entries) => {
        const json = objectText(entries);
        comparable(json);
        const rest = await viaRest('POST', '/v1/batch', json);
        const graphql = await viaGraphQL('batch', '$items: [BatchItemInput!]!', BATCH, json);
        expect(codes(graphql), `for ${show(json)}`).toEqual(codes(rest));
      }),
      { numRuns: RUNS },
    );
  });
});
