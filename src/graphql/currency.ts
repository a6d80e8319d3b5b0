import { GraphQLError } from 'graphql';
import type { CurrencyConversion } from '../domain/currency/convert';
import type { DateResolution } from '../domain/currency/explain-date';
import type { RatesAnswer } from '../services/currency/listings';
import type { FigureUsed, LegUsed } from '../domain/sources/answer';
import { builder } from './builder';
import { addSourceRateFields } from './source-figures';
import { DateResolutionRef, NextPublicationRef, RatesSourceEnum, SuccessionRef } from './currencies';
import { SUCCESSIONS } from '../domain/currency/successions';
import { listItems, policy } from './field-policy';
import { ExpressionRateRef, QuantityRef, RoundingEnum, decimalsRule } from './units';

/** A rate's fixed rates: at most every succession there is. */
const MOST_FIXED_RATES = SUCCESSIONS.length;

const RATE_MAP_VALUE = /^-?\d+(\.\d+)?$/;

builder.scalarType('RateMap', {
  description:
    'An object from upper-case currency code to a decimal string: units of that currency per one unit of the base (EUR: as published), times the amount when one is given. TypeScript: `Record<string, string>`.',
  serialize: (value) => {
    if (typeof value !== 'object' || value === null) throw new TypeError('RateMap must be an object');
    for (const rate of Object.values(value)) if (typeof rate !== 'string' || !RATE_MAP_VALUE.test(rate)) throw new TypeError('bad rate');
    return value;
  },
  parseValue: () => {
    throw new GraphQLError('RateMap is an output type only.');
  },
});

export const MINOR_UNITS_TEXT =
  'Round the result to the ISO 4217 minor units of `to` (JPY 0, USD 2, BHD 3), with `rounding`. Not together with `decimals`.';

const FIXED_TEXT =
  'The irrevocable rates used: a currency replaced by law (by the euro, or redenominated) converts at its fixed rate to its successor from the day of the change; the rest of the rate is the ECB publication of `date`. Empty when no fixed rate was used.';

const RESOLVED_TEXT =
  'The day asked for (without `date`: today in Europe/Berlin), the publication used and whether it was carried forward.';

/** The rate of a conversion; the currency service adds how the day asked for resolved, always. */
type ExplainedRate = CurrencyConversion['rate'] & { resolved: DateResolution; figures?: readonly FigureUsed[]; legs?: readonly LegUsed[] };
type ExplainedConversion = Omit<CurrencyConversion, 'rate'> & { rate: ExplainedRate };

const RateRef = builder.objectRef<ExplainedRate>('Rate').implement({
  description:
    "The rate a currency conversion used: one official publisher's figures (the ECB's reference rates, or another source's, in one leg or two), and the fixed rates of currencies replaced by law.",
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'Publication date of the rates actually used.', resolve: (r) => r.date }),
    source: t.exposeString('source', {
      description:
        '"ecb" when the rate rests on published rates only; the legal act(s) of `fixed` when on fixed rates only (HRK to EUR from 2023-01-01); both, separated by "; ", when on both (HRK to USD).',
    }),
    value: t.field({
      type: 'Decimal',
      description: 'The exact cross rate toRate ÷ fromRate (40 significant digits at most).',
      resolve: (r) => r.value,
    }),
    fixed: t.field({
      ...listItems(MOST_FIXED_RATES),
      type: [SuccessionRef],
      description: FIXED_TEXT,
      resolve: (r) => r.fixed,
    }),
    resolved: t.field({ type: DateResolutionRef, description: RESOLVED_TEXT, resolve: (r) => r.resolved }),
  }),
});

// A unit expression with currencies says how its date resolved, and which fixed rates it used, exactly
// as a currency conversion does: the same fields, types and nullability, so a batch selecting both reads them alike.
builder.objectField(ExpressionRateRef, 'resolved', (t) =>
  t.field({ type: DateResolutionRef, description: RESOLVED_TEXT, resolve: (r) => r.resolved }),
);
builder.objectField(ExpressionRateRef, 'fixed', (t) =>
  t.field({ ...listItems(MOST_FIXED_RATES), type: [SuccessionRef], description: FIXED_TEXT, resolve: (r) => r.fixed }),
);

addSourceRateFields(RateRef);
addSourceRateFields(ExpressionRateRef);

/** The `source` argument of every field that prices currencies. */
export const SOURCE_ARG_TEXT =
  "Use this source's figures only: ecb, boc, nb, cnb, nbp, cbr, boi, imf or nbu (GET /v1/sources, `sources`). Without it: the ECB when it quotes both currencies that day, else the first source in `sources` order that quotes both, else two sources joined through a currency both quote.";

export const CurrencyConversionRef = builder.objectRef<ExplainedConversion>('CurrencyConversion').implement({
  description: 'The result of a currency conversion: value × toRate ÷ fromRate, exactly, rounded once if `decimals` is set.',
  fields: (t) => ({
    input: t.field({ type: QuantityRef, resolve: (c) => c.input }),
    result: t.field({ type: QuantityRef, resolve: (c) => c.result }),
    rate: t.field({ type: RateRef, resolve: (c) => c.rate }),
  }),
});

const RatesRef = builder.objectRef<RatesAnswer>('Rates').implement({
  description: 'One ECB publication of reference rates, against EUR or any base, optionally times an amount.',
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'The publication used.', resolve: (r) => r.date }),
    base: t.exposeString('base', {
      description: 'The base currency: each rate is units of that currency per one unit of the base. EUR by default.',
    }),
    source: t.field({
      type: RatesSourceEnum,
      description: 'The source whose publication is listed ("ecb" unless `source` asked another).',
      resolve: (r) => r.source,
    }),
    amount: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'The amount of the base every rate is multiplied by, as sent; null without one.',
      resolve: (r) => r.amount ?? null,
    }),
    rates: t.field({ type: 'RateMap', resolve: (r) => r.rates }),
    resolved: t.field({
      type: DateResolutionRef,
      description: 'The day asked for, the publication used and whether it was carried forward.',
      resolve: (r) => r.resolved,
    }),
    nextPublication: t.field({
      type: NextPublicationRef,
      nullable: true,
      description: 'For the latest publication (no `date`): when the next one is expected; null otherwise.',
      resolve: (r) => r.nextPublication ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  convertCurrency: t.field({
    ...policy({ access: 'key', conversions: 'one' }),
    type: CurrencyConversionRef,
    nullable: true,
    description: 'Converts between currencies with the ECB euro reference rates. Needs an API key; `date` needs the Developer plan.',
    args: {
      value: t.arg({ type: 'Decimal', required: true }),
      from: t.arg.string({ required: true, description: 'Currency code, case-insensitive.' }),
      to: t.arg.string({ required: true, description: 'Currency code, case-insensitive.' }),
      decimals: t.arg.int({
        required: false,
        validate: { schema: decimalsRule },
        description: 'Round the result once to this many places (0 to 40).',
      }),
      rounding: t.arg({ type: RoundingEnum, required: false }),
      minorUnits: t.arg.boolean({ required: false, description: MINOR_UNITS_TEXT }),
      date: t.arg({
        type: 'Date',
        required: false,
        description: 'Use the rates in effect on this day (the latest publication on or before it).',
      }),
      source: t.arg({ type: RatesSourceEnum, required: false, description: SOURCE_ARG_TEXT }),
    },
    resolve: async (_, args, ctx, info) =>
      ctx.services.conversions.currency(args, await ctx.requestContext.caller(info.path.key as string)),
  }),
  rates: t.field({
    ...policy({ access: 'key' }),
    type: RatesRef,
    nullable: true,
    description:
      'The reference rates of a day (or the latest) of the ECB or another `source`, against its base or any `base`, optionally times an `amount`. Needs an API key; `date` needs the Developer plan. Uses no quota.',
    args: {
      date: t.arg({
        type: 'Date',
        required: false,
        description: 'Use the publication in effect on this day (the latest on or before it).',
      }),
      symbols: t.arg.stringList({
        required: false,
        description: 'Currency codes to list, in this order (default: all quoted that day). In REST: a comma-separated list.',
      }),
      base: t.arg.string({
        required: false,
        description:
          "Base currency code, case-insensitive: each rate is rate(code) ÷ rate(base), exactly. EUR by default (the source's own base with `source`).",
      }),
      amount: t.arg({ type: 'Decimal', required: false, description: 'Multiply every rate by this amount of the base, exactly.' }),
      decimals: t.arg.int({
        required: false,
        validate: { schema: decimalsRule },
        description: 'Round each rate once to this many places (0 to 40).',
      }),
      rounding: t.arg({ type: RoundingEnum, required: false }),
      source: t.arg({
        type: RatesSourceEnum,
        required: false,
        description:
          "List this source's figures (GET /v1/sources): against its own base by default, every currency its tables of that base carry. The ECB without it.",
      }),
    },
    resolve: async (_, args, ctx) => {
      const caller = await ctx.requestContext.caller();
      return ctx.services.rateListings.ratesFor(args, caller.principal.account.plan, caller.publications);
    },
  }),
  latestRates: t.field({
    ...policy({ access: 'public' }),
    type: RatesRef,
    nullable: true,
    description: 'The latest ECB reference rates against EUR, with when the next publication is expected. Public.',
    resolve: (_, __, ctx) => ctx.services.rateListings.latest(),
  }),
}));
