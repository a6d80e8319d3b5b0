import DataLoader from 'dataloader';
import { describe, expect, it, vi } from 'vitest';
import { createCurrencyServices } from '../../src/services/currency';
import { convertExpression } from '../../src/services/expressions';
import { historyFacts, precomputeOnRevision } from '../../src/services/currency/history';
import { csvLines } from '../../src/domain/currency/series-export';
import type { Publication } from '../../src/domain/ecb';
import type { ErrorCode } from '../../src/domain/errors';
import { revisableRates, tableRates } from '../helpers/table-rates';

// Made-up publications in the ECB's form (not real ECB data). HRK ends 2022-12-30 (the euro came
// 2023-01-01); 2022-12-31 and 2023-01-01 are a weekend; RUB is quoted only at the start.
const PUBS: Publication[] = [
  { date: '2022-12-28', rates: { USD: '1.0600', JPY: '141.00', HRK: '7.5401', RUB: '75.50' } },
  { date: '2022-12-29', rates: { USD: '1.0650', JPY: '141.50', HRK: '7.5402' } },
  { date: '2022-12-30', rates: { USD: '1.0700', JPY: '142.00', HRK: '7.5403' } },
  { date: '2023-01-02', rates: { USD: '1.0680', JPY: '140.00' } },
  { date: '2023-01-03', rates: { USD: '1.0550', JPY: '139.50' } },
];
// Tuesday 2023-01-03, 18:00 Berlin (CET): the 3rd is published.
const NOW = new Date('2023-01-03T17:00:00Z');

const service = (pubs = PUBS) => {
  const rates = tableRates(pubs);
  return { rates, currency: createCurrencyServices(rates, () => NOW) };
};

async function refusal(promise: Promise<unknown>): Promise<{ code: ErrorCode; param: string | undefined; message: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: ErrorCode; param: string | undefined; message: string };
    return { code: e.code, param: e.param, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('the registry use cases', () => {
  it('lists every currency with dates from the stored history, computed once per revision', async () => {
    const { rates, currency } = service();
    const list = await currency.registry.listCurrencies();
    expect(list.find((c) => c.code === 'HRK')).toMatchObject({
      firstDate: '2022-12-28',
      lastDate: '2022-12-30',
      status: 'retired',
      successor: { rate: '7.53450' },
    });
    expect(list.find((c) => c.code === 'EUR')).toMatchObject({ firstDate: '2022-12-28', lastDate: '2023-01-03', status: 'active' });
    const reads = rates.reads.length;
    await currency.registry.getCurrency('usd');
    await currency.registry.listCurrencies();
    expect(rates.reads.length).toBe(reads);
  });

  it('with a reader that announces its changes, computes the registry off the request path: at once, and after each new publication', async () => {
    const rates = revisableRates(PUBS.slice(0, 3));
    const facts = historyFacts(rates);
    precomputeOnRevision(rates, facts);
    const { registry } = createCurrencyServices(rates, () => NOW, facts);
    await vi.waitFor(() => expect(rates.reads.length).toBeGreaterThan(0));
    await facts();
    let reads = rates.reads.length;
    expect((await registry.getCurrency('EUR')).lastDate).toBe('2022-12-30');
    expect(rates.reads.length).toBe(reads);

    rates.publish(PUBS);
    await facts();
    reads = rates.reads.length;
    expect((await registry.getCurrency('EUR')).lastDate).toBe('2023-01-03');
    expect((await registry.getCurrency('HRK')).status).toBe('retired');
    expect(rates.reads.length).toBe(reads);
  });

  it('leaves a reader that does not announce its changes alone until asked', async () => {
    const rates = tableRates(PUBS);
    precomputeOnRevision(rates, historyFacts(rates));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(rates.reads).toEqual([]);
  });

  it('answers NOT_FOUND for a code the ECB never quoted, SERVICE_UNAVAILABLE before any rates', async () => {
    expect(await refusal(service().currency.registry.getCurrency('XYZ'))).toMatchObject({ code: 'NOT_FOUND', param: 'code' });
    expect(await refusal(service([]).currency.registry.listCurrencies())).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('rates for a day, any base, an amount, the date explained', () => {
  it('resolves a weekend to the Friday, says so, and lists against the base', async () => {
    const answer = await service().currency.listings.ratesFor({ date: '2022-12-31', base: 'usd', symbols: 'JPY,EUR,USD' }, 'developer');
    expect(answer).toEqual({
      date: '2022-12-30',
      base: 'USD',
      source: 'ecb',
      rates: { JPY: '132.7102803738317757009345794392523364486', EUR: '0.9345794392523364485981308411214953271028', USD: '1' },
      resolved: { requested: '2022-12-31', publication: '2022-12-30', carriedForward: true, reason: 'weekend' },
    });
  });

  it('without a date: the latest, as published, and when the next publication is expected', async () => {
    const answer = await service().currency.listings.ratesFor({ symbols: ['USD'], amount: '10', decimals: '2' }, 'free');
    expect(answer).toMatchObject({
      date: '2023-01-03',
      amount: '10',
      rates: { USD: '10.55' },
      resolved: { requested: '2023-01-03', publication: '2023-01-03', carriedForward: false },
      nextPublication: { date: '2023-01-04', expectedAt: '2023-01-04T15:00:00.000Z', overdue: false },
    });
  });

  it.each([
    [{ base: 'US' }, 'free', 'INVALID_REQUEST', 'base'],
    [{ symbols: 'USD,,JPY' }, 'free', 'INVALID_REQUEST', 'symbols'],
    [{ symbols: [] }, 'free', 'INVALID_REQUEST', 'symbols'],
    [{ amount: 12 }, 'free', 'INVALID_REQUEST', 'amount'],
    [{ amount: '1e3' }, 'free', 'INVALID_REQUEST', 'amount'],
    [{ decimals: 41 }, 'free', 'INVALID_REQUEST', 'decimals'],
    [{ rounding: 'NEAREST' }, 'free', 'INVALID_REQUEST', 'rounding'],
    [{ date: '2023-02-30' }, 'developer', 'INVALID_REQUEST', 'date'],
    [{ date: '2023-01-02' }, 'free', 'PLAN_REQUIRED', 'date'],
    [{ base: 'XYZ' }, 'free', 'UNKNOWN_CURRENCY', 'base'],
    [{ symbols: 'USD,XYZ' }, 'free', 'UNKNOWN_CURRENCY', 'symbols'],
    [{ date: '1998-12-31' }, 'developer', 'RATE_NOT_FOUND', 'date'],
    [{ date: '2023-01-04' }, 'developer', 'RATE_NOT_FOUND', 'date'],
    [{ base: 'HRK' }, 'free', 'RATE_NOT_FOUND', 'base'],
    [{ symbols: 'RUB' }, 'free', 'RATE_NOT_FOUND', 'symbols'],
  ] as const)('%j on %s: %s (%s)', async (query, plan, code, param) => {
    expect(await refusal(service().currency.listings.ratesFor(query, plan))).toMatchObject({ code, param });
  });

  it('says when a replaced currency was last quoted, and the fixed rate to use', async () => {
    const { message } = await refusal(service().currency.listings.ratesFor({ date: '2023-01-02', symbols: 'HRK' }, 'developer'));
    expect(message).toBe('HRK was last quoted on 2022-12-30; since 2023-01-01 1 EUR = 7.53450 HRK (irrevocable).');
  });
});

describe('time series', () => {
  it('lists one entry per publication in the range, and exports it as CSV', async () => {
    const answer = await service().currency.series.series({ start: '2022-12-29', end: '2023-01-02', symbols: 'USD,JPY' }, 'developer');
    expect(answer).toMatchObject({
      start: '2022-12-29',
      end: '2023-01-02',
      base: 'EUR',
      group: 'day',
      symbols: ['USD', 'JPY'],
      nextCursor: null,
    });
    expect([...answer.entries()].map((e) => e.period)).toEqual(['2022-12-29', '2022-12-30', '2023-01-02']);
    expect([...csvLines(answer.entries(), answer)].join('')).toBe(
      'date,base,USD,JPY\r\n2022-12-29,EUR,1.0650,141.50\r\n2022-12-30,EUR,1.0700,142.00\r\n2023-01-02,EUR,1.0680,140.00\r\n',
    );
  });

  it('groups by month with exact means; a currency quoted on some days has its own count', async () => {
    const answer = await service().currency.series.series(
      { start: '2022-01-01', end: '2023-12-31', group: 'month', base: 'USD' },
      'business',
    );
    expect(answer.symbols).toEqual(['EUR', 'JPY', 'HRK', 'RUB']);
    const [dec, jan] = [...answer.entries()];
    expect(dec).toMatchObject({ period: '2022-12', start: '2022-12-28', end: '2022-12-30', publications: 3, partial: { RUB: 1 } });
    expect(jan).toMatchObject({
      period: '2023-01',
      start: '2023-01-02',
      end: '2023-01-03',
      publications: 2,
      rates: { EUR: '0.9420984432965901627704705610877398512523' },
    });
    expect(Object.keys(jan!.rates)).toEqual(['EUR', 'JPY']);
  });

  it('clips the range to the publications held, and refuses a range without a quote of the base', async () => {
    expect(await service().currency.series.series({ start: '1990-01-01', end: '2030-01-01' }, 'developer')).toMatchObject({
      start: '2022-12-28',
      end: '2023-01-03',
    });
    const { code, param, message } = await refusal(
      service().currency.series.series({ start: '2023-01-02', end: '2023-01-03', base: 'HRK' }, 'developer'),
    );
    expect({ code, param }).toEqual({ code: 'RATE_NOT_FOUND', param: 'base' });
    expect(message).toContain('1 EUR = 7.53450 HRK');
  });

  it('without end, runs to the newest publication held, and its last page is never complete (it grows with each publication)', async () => {
    expect(await service().currency.series.series({ start: '2022-12-29' }, 'developer')).toMatchObject({
      start: '2022-12-29',
      end: '2023-01-03',
      nextCursor: null,
      complete: false,
    });
  });

  it.each([
    [{ end: '2023-01-01' }, 'developer', 'INVALID_REQUEST', 'start'],
    [{ start: '2023-01-01', end: '2023-02-30' }, 'developer', 'INVALID_REQUEST', 'end'],
    [{ start: '2023-01-02', end: '2023-01-01' }, 'developer', 'INVALID_REQUEST', 'end'],
    [{ start: '2023-01-01', end: '2023-01-02', group: 'fortnight' }, 'developer', 'INVALID_REQUEST', 'group'],
    [{ start: '2023-01-01', end: '2023-01-02', decimals: 41 }, 'developer', 'INVALID_REQUEST', 'decimals'],
    [{ start: '2023-01-01', end: '2023-01-02', cursor: 'abc' }, 'developer', 'INVALID_REQUEST', 'cursor'],
    [{ start: '2023-01-01', end: '2023-01-02' }, 'free', 'PLAN_REQUIRED', undefined],
    [{ start: '2023-01-01', end: '2023-01-02', symbols: 'XYZ' }, 'developer', 'UNKNOWN_CURRENCY', 'symbols'],
    [{ start: '2024-01-01', end: '2024-01-02' }, 'developer', 'RATE_NOT_FOUND', 'start'],
    [{ start: '2023-01-02', end: '2023-01-03', symbols: 'RUB' }, 'developer', 'RATE_NOT_FOUND', 'symbols'],
  ] as const)('%j on %s: %s (%s)', async (query, plan, code, param) => {
    expect(await refusal(service().currency.series.series(query, plan))).toMatchObject({ code, param });
  });

  it.each([
    ['day', 'EUR', 0],
    ['day', 'USD', 0],
    ['week', 'USD', 0],
    ['month', 'JPY', 0],
    ['year', 'USD', 0],
    ['day', 'USD', 1000],
    ['month', 'USD', 1000],
  ] as const)('gives the same entries in chunks as whole (group %s, base %s, %i ms a chunk)', async (group, base, budgetMs) => {
    const answer = await service().currency.series.series({ start: '2022-12-01', end: '2023-01-31', group, base }, 'developer');
    const chunks: unknown[][] = [];
    for await (const chunk of answer.chunks(budgetMs)) chunks.push(chunk);
    expect(chunks.flat()).toEqual([...answer.entries()]);
    // No budget: a chunk per publication (or none, inside a period); all the budget: one chunk.
    if (budgetMs === 1000) expect(chunks).toHaveLength(1);
    else
      expect(chunks.length).toBe(group === 'day' ? PUBS.length : new Set(chunks.flat().map((e) => (e as { period: string }).period)).size);
  });

  it('plans a page without reading a publication, and binds its cursor to the format', async () => {
    const old: Publication[] = [{ date: '2005-06-01', rates: { USD: '1.2' } }, ...PUBS];
    const { rates, currency } = service(old);
    const reads = rates.reads.length;
    const plan = currency.series.planSeries({ start: '2005-01-01', end: '2023-01-03' }, 'developer');
    expect(plan).toMatchObject({
      start: '2005-06-01',
      end: '2015-05-31',
      base: 'EUR',
      asked: undefined,
      complete: true,
      dates: ['2005-06-01'],
    });
    expect(rates.reads.length).toBe(reads);
    expect(currency.series.planSeries({ start: '2005-01-01', end: '2023-01-03', cursor: plan.nextCursor }, 'developer').start).toBe(
      '2015-06-01',
    );
    expect(() =>
      currency.series.planSeries(
        { start: '2005-01-01', end: '2023-01-03', format: 'application/x-ndjson', cursor: plan.nextCursor },
        'developer',
      ),
    ).toThrow(/continues another query/);
    // CSV is one page whatever the range.
    expect(currency.series.planSeries({ start: '2005-01-01', end: '2023-01-03', format: 'text/csv' }, 'developer')).toMatchObject({
      start: '2005-06-01',
      end: '2023-01-03',
      nextCursor: null,
    });
  });

  it('pages days over ten years with a cursor that the next call follows; yearly means are one page', async () => {
    const old: Publication[] = [{ date: '2005-06-01', rates: { USD: '1.2' } }, ...PUBS];
    const { series } = service(old).currency;
    const first = await series.series({ start: '2005-01-01', end: '2023-01-03' }, 'developer');
    expect(first).toMatchObject({ start: '2005-06-01', end: '2015-05-31' });
    expect([...first.entries()].map((e) => e.period)).toEqual(['2005-06-01']);
    const second = await series.series({ start: '2005-01-01', end: '2023-01-03', cursor: first.nextCursor }, 'developer');
    expect(second).toMatchObject({ start: '2015-06-01', end: '2023-01-03', nextCursor: null });
    const years = await series.series({ start: '2005-01-01', end: '2023-01-03', group: 'year' }, 'developer');
    expect(years).toMatchObject({ start: '2005-06-01', end: '2023-01-03', nextCursor: null });
    expect([...years.entries()].map((e) => e.period)).toEqual(['2005', '2022', '2023']);
  });
});

describe('conversions and the plain listing explain a missing rate too', () => {
  it('says when a currency was last quoted, for a conversion and for rates?symbols=', async () => {
    const rates = tableRates(PUBS);
    const currency = createCurrencyServices(rates, () => NOW, historyFacts(rates));
    const loader = new DataLoader((dates: readonly string[]) => rates.loadPublications(dates));
    // A conversion needs the rate of RUB, which nothing replaced; HRK converts at its fixed rate (legal-rate.ts).
    const conversion = await refusal(
      currency.converter.convert({ value: '1', from: 'EUR', to: 'RUB', date: '2023-01-02' }, 'developer', loader),
    );
    expect(conversion).toEqual({
      code: 'RATE_NOT_FOUND',
      param: 'to',
      message: 'RUB was last quoted on 2022-12-28; the ECB has not quoted it since.',
    });
    const hrk = await currency.converter.convert({ value: '1', from: 'EUR', to: 'HRK', date: '2023-01-02' }, 'developer', loader);
    expect(hrk.result.value).toBe('7.5345');
    const listing = await refusal(currency.listings.ratesFor({ symbols: 'USD,RUB' }, 'free', loader));
    expect(listing).toEqual({
      code: 'RATE_NOT_FOUND',
      param: 'symbols',
      message: 'RUB was last quoted on 2022-12-28; the ECB has not quoted it since.',
    });
  });
});

describe('every answer that uses rates resolves its day by one rule', () => {
  const paths = (pubs: Publication[], date?: string) => {
    const rates = tableRates(pubs);
    const currency = createCurrencyServices(rates, () => NOW);
    const loader = new DataLoader((dates: readonly string[]) => rates.loadPublications(dates));
    const request = { value: '1', from: 'EUR', to: 'USD', ...(date === undefined ? {} : { date }) };
    return {
      conversion: currency.converter.convert(request, 'developer', loader).then((answer) => answer.rate),
      listing: currency.listings.ratesFor({ symbols: 'USD', ...(date === undefined ? {} : { date }) }, 'developer', loader),
      expression: convertExpression(
        { ...request, from: 'EUR/kWh', to: 'USD/kWh' },
        { plan: 'developer', rates, clock: () => NOW, publications: loader, explainer: currency.converter.explainer },
      ).then((answer) => answer.rate!),
    };
  };

  it.each([undefined, '2022-12-31', '2023-01-02'])('day %s: the same publication, explained alike, on every path', async (date) => {
    const { conversion, listing, expression } = paths(PUBS, date);
    const answers = await Promise.all([conversion, listing, expression]);
    const [first, ...others] = answers.map((answer) => ({ date: answer.date, resolved: answer.resolved }));
    for (const other of others) expect(other).toEqual(first);
  });

  it.each([
    [PUBS, '1998-12-31', 'RATE_NOT_FOUND'],
    [PUBS, '2023-02-30', 'INVALID_REQUEST'],
    [[], undefined, 'SERVICE_UNAVAILABLE'],
  ] as const)('the same refusal on every path (%#: %s)', async (pubs, date, code) => {
    const { conversion, listing, expression } = paths([...pubs], date);
    const refusals = await Promise.all([conversion, listing, expression].map((answer) => refusal(answer)));
    for (const each of refusals) expect(each).toEqual({ ...refusals[0], code });
  });
});
