import DataLoader from 'dataloader';
import { describe, expect, it } from 'vitest';
import { convertUnitsOrExplain } from '../../src/domain/conversion';
import type { Publication } from '../../src/domain/ecb';
import type { PlanId } from '../../src/domain/plans';
import { historyFacts } from '../../src/services/currency/history';
import { convertExpression, type ExpressionRequest } from '../../src/services/expressions';
import { createPublicationExplainer } from '../../src/services/currency/publication';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/** A made-up publication quoting XTS (the ISO code for testing), which is in no static list. */
const WITH_TEST_CODE: Publication = { date: '2024-04-03', rates: { USD: '1.0790', XTS: '2' } };

function setup(publications: Publication[] = MADE_UP_PUBLICATIONS) {
  const rates = tableRates(publications);
  const clock = () => new Date('2024-04-03T10:00:00Z');
  const explainer = createPublicationExplainer(rates, clock, historyFacts(rates));
  const run = (request: ExpressionRequest, plan: PlanId = 'developer') =>
    convertExpression(request, {
      plan,
      rates,
      clock,
      publications: new DataLoader((dates: readonly string[]) => rates.loadPublications(dates)),
      explainer,
    });
  return { rates, run };
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a refusal').toBeDefined();
  const { code, param, message } = error as { code: string; param?: string; message: string };
  return { code, param, message };
}

describe("plain catalogue units keep today's path", () => {
  it.each([
    { value: '12.5', from: 'in', to: 'cm' },
    { value: '1', from: 'km/h', to: 'm/s' },
    { value: '10', from: 'L/100 km', to: 'mpg', decimals: 3, rounding: 'DOWN' },
    { value: '-40', from: '°C', to: '°F' },
    { value: '1', from: 'rad', to: 'degree' },
  ] as const)('%j answers byte for byte as convertUnitsOrExplain', async (request) => {
    const { rates, run } = setup();
    expect(JSON.stringify(await run(request))).toBe(JSON.stringify(convertUnitsOrExplain(request)));
    expect(rates.reads).toEqual([]);
  });

  it.each([
    [{ value: '1', from: 'USD', to: 'EUR' }, 'UNKNOWN_UNIT', 'from'],
    [{ value: '1', from: 'kg', to: 'USD' }, 'INCOMPATIBLE_UNITS', 'to'],
    [{ value: '1', from: 'km', to: 'kg' }, 'INCOMPATIBLE_UNITS', 'to'],
  ])('%j is refused as today: %s', async (request, code, param) => {
    const { run } = setup();
    const got = await refusal(run(request));
    expect(got).toEqual(await refusal(Promise.resolve().then(() => convertUnitsOrExplain(request))));
    expect({ code: got.code, param: got.param }).toEqual({ code, param });
  });
});

describe('two catalogue units of different categories', () => {
  it('are refused with both dimensions written out, as an expression is', async () => {
    const { run } = setup();
    expect(await refusal(run({ value: '1', from: 'km/h', to: 'kg' }))).toMatchObject({
      code: 'INCOMPATIBLE_UNITS',
      param: 'to',
      message: 'Cannot convert speed (kilometer_per_hour) to mass (kilogram): speed is length·time⁻¹, mass is mass.',
    });
    expect((await refusal(run({ value: '1', from: 'kg', to: 'USD' }))).message).toBe(
      "Cannot convert mass (kilogram) to a currency ('USD'): mass is mass, a currency is money.",
    );
  });
});

describe('expressions without a currency need no rates', () => {
  it('converts while no rates have ever been loaded, reading none', async () => {
    const { rates, run } = setup([]);
    const answer = await run({ value: '9.80665', from: 'm/s²', to: 'ft/s²' });
    expect(answer).toEqual({
      input: { value: '9.80665', unit: 'meter/second^2' },
      result: { value: '32.17404855643044619422572178477690288714', unit: 'foot/second^2' },
      category: 'derived',
    });
    expect(rates.reads).toEqual([]);
  });

  it('ignores a date where no currency occurs (it chooses no rates), on any plan, and reads none', async () => {
    const { run, rates } = setup();
    const plain = await run({ value: '1', from: 'm/s^2', to: 'ft/s^2' });
    expect(await run({ value: '1', from: 'm/s^2', to: 'ft/s^2', date: '2024-03-28' }, 'free')).toEqual(plain);
    expect((await run({ value: '1', from: 'in', to: 'cm', date: '2024-03-28' }, 'free')).result).toEqual({
      value: '2.54',
      unit: 'centimeter',
    });
    expect(rates.reads).toEqual([]);
  });

  it('still checks that date names a day, and says which day does not exist', async () => {
    const { run } = setup();
    expect(await refusal(run({ value: '1', from: 'in', to: 'cm', date: '2024-02-30' }))).toEqual({
      code: 'INVALID_REQUEST',
      param: 'date',
      message: 'date 2024-02-30 does not exist: February 2024 has 29 days.',
    });
    expect(await refusal(run({ value: '1', from: 'm/s', to: 'km/h', date: '28.03.2024' }))).toMatchObject({
      code: 'INVALID_REQUEST',
      param: 'date',
      message: 'date must be a calendar date written YYYY-MM-DD.',
    });
  });
});

describe('expressions with currencies use one publication and report it', () => {
  it('uses the latest publication without a date', async () => {
    const { run } = setup();
    expect(await run({ value: '0.25', from: 'EUR/kWh', to: 'USD/MWh' })).toEqual({
      input: { value: '0.25', unit: 'EUR/kilowatt_hour' },
      result: { value: '269.1', unit: 'USD/megawatt_hour' }, // 0.25 × 1000 × 1.0764
      category: 'derived',
      rate: {
        date: '2024-04-02',
        source: 'ecb',
        value: '1.0764',
        rates: { EUR: '1', USD: '1.0764' },
        fixed: [],
        // Without a date the day asked for is today in Berlin, a business day not published yet at 12:00.
        resolved: { requested: '2024-04-03', publication: '2024-04-02', carriedForward: true, reason: 'not-yet-published' },
      },
    });
  });

  it('resolves a historical date to the publication on or before it (developer plan)', async () => {
    const { rates, run } = setup();
    const answer = await run({ value: '3.459', from: 'USD/gal', to: 'EUR/L', date: '2024-03-30' });
    expect(answer.result).toEqual({ value: '0.845223503012519997039195105768285186413', unit: 'EUR/liter' });
    expect(answer.rate).toEqual({
      date: '2024-03-28',
      source: 'ecb',
      value: '0.9249838127832762926648783646286189991675',
      rates: { EUR: '1', USD: '1.0811' },
      fixed: [],
      resolved: { requested: '2024-03-30', publication: '2024-03-28', carriedForward: true, reason: 'weekend' },
    });
    expect(rates.reads).toEqual([['2024-03-28']]);
  });

  it('converts a currency the euro replaced at its fixed rate from the day of the change, the rest at the publication', async () => {
    const { run } = setup();
    const answer = await run({ value: '75.345', from: 'HRK/kWh', to: 'USD/kWh', date: '2024-03-28' });
    expect(answer.result.value).toBe('10.811'); // 75.345 / 7.53450 × 1.0811
    expect(answer.rate).toMatchObject({
      source: 'ecb; Council Regulation (EC) No 2866/98, Article 1, as amended by Council Regulation (EU) 2022/1208',
      rates: { HRK: '7.5345', USD: '1.0811' },
      fixed: [{ code: 'HRK', successor: 'EUR', rate: '7.53450' }],
    });
  });

  it('says a publication of the day asked for is not carried forward', async () => {
    const { run } = setup();
    const answer = await run({ value: '1', from: 'EUR/kWh', to: 'JPY/kWh', date: '2024-03-27' });
    expect(answer.rate?.resolved).toEqual({ requested: '2024-03-27', publication: '2024-03-27', carriedForward: false });
  });

  it('rounds once with decimals and rounding', async () => {
    const { run } = setup();
    const answer = await run({ value: '3.459', from: 'USD/gal', to: 'EUR/L', date: '2024-03-28', decimals: 4, rounding: 'UP' });
    expect(answer.result.value).toBe('0.8453');
  });

  it('accepts a code the ECB data quotes though no static list has it', async () => {
    const { run } = setup([...MADE_UP_PUBLICATIONS, WITH_TEST_CODE]);
    expect((await run({ value: '1', from: 'XTS/kg', to: 'EUR/g' })).result.value).toBe('0.0005');
  });

  it.each([
    // validation (the expression's syntax) comes before the plan
    [{ value: '1', from: 'EUR/m^99999', to: 'USD/m', date: '2024-03-28' }, 'free', 'INVALID_REQUEST', 'from'],
    [{ value: '1', from: 'EUR/kWh', to: 'USD/MWh', date: '2024-02-30' }, 'free', 'INVALID_REQUEST', 'date'],
    // the plan comes before existence
    [{ value: '1', from: 'EUR/kilometr', to: 'USD/km', date: '2024-03-28' }, 'free', 'PLAN_REQUIRED', 'date'],
    [{ value: '1', from: 'EUR/kWh', to: 'USD/MWh', date: '2024-03-28' }, 'free', 'PLAN_REQUIRED', 'date'],
    [{ value: '1', from: 'EUR/kilometr', to: 'USD/km' }, 'free', 'UNKNOWN_UNIT', 'from'],
    [{ value: '1', from: 'XYZ/kg', to: 'EUR/kg' }, 'developer', 'UNKNOWN_UNIT', 'from'],
    [{ value: '1', from: 'EUR/kWh', to: 'USD/kg' }, 'developer', 'INCOMPATIBLE_UNITS', 'to'],
    [{ value: '1', from: 'GBP/kg', to: 'EUR/kg' }, 'developer', 'RATE_NOT_FOUND', 'from'],
    [{ value: '1', from: 'EUR/kg', to: 'GBP/kg', date: '2024-04-02' }, 'business', 'RATE_NOT_FOUND', 'to'],
    [{ value: '1', from: 'EUR/kg', to: 'USD/kg', date: '1998-12-31' }, 'developer', 'RATE_NOT_FOUND', 'date'],
    [{ value: '1', from: 'EUR/kg', to: 'USD/kg', date: '2024-04-04' }, 'developer', 'RATE_NOT_FOUND', 'date'],
  ] as const)('%j on the %s plan is %s (%s)', async (request, plan, code, param) => {
    const { run } = setup();
    expect(await refusal(run(request, plan))).toMatchObject({ code, param });
  });

  it.each([
    // GBP is left out of the made-up Friday-after-Easter publication: when it was last quoted
    [{ value: '1', from: 'GBP/kg', to: 'EUR/kg' }, 'from', 'GBP was last quoted on 2024-03-28; the ECB has not quoted it since.'],
    [
      { value: '1', from: 'EUR/kg', to: 'RUB/kg', date: '2024-03-28' },
      'to',
      'RUB was last quoted on 2024-03-27; the ECB has not quoted it since.',
    ],
    // from's currencies are asked for first, as the exact conversion asks for their rates
    [{ value: '1', from: 'RUB/kg', to: 'GBP/kg' }, 'from', 'RUB was last quoted on 2024-03-27; the ECB has not quoted it since.'],
  ] as const)('%j is RATE_NOT_FOUND on %s, saying when it was last quoted', async (request, param, message) => {
    const { run } = setup([{ date: '2022-12-30', rates: { USD: '1.0666', HRK: '7.5365' } }, ...MADE_UP_PUBLICATIONS]);
    expect(await refusal(run(request))).toEqual({ code: 'RATE_NOT_FOUND', param, message });
  });

  it('is SERVICE_UNAVAILABLE while no rates are loaded, and checks dimensions before asking', async () => {
    const { run } = setup([]);
    expect(await refusal(run({ value: '1', from: 'EUR/kWh', to: 'USD/MWh' }))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await refusal(run({ value: '1', from: 'EUR/kWh', to: 'USD/kg' }))).toMatchObject({ code: 'INCOMPATIBLE_UNITS' });
  });
});
