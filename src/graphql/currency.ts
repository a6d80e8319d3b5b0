import { GraphQLError } from 'graphql';
import type { CurrencyConversion, RatesListing } from '../domain/currency/convert';
import { builder } from './builder';
import { policy } from './field-policy';
import { QuantityRef, RoundingEnum, decimalsRule } from './units';

const RATE_MAP_VALUE = /^\d+(\.\d+)?$/;

builder.scalarType('RateMap', {
  description: 'An object from upper-case currency code to a decimal string: units of that currency per 1 EUR, as published.',
  serialize: (value) => {
    if (typeof value !== 'object' || value === null) throw new TypeError('RateMap must be an object');
    for (const rate of Object.values(value)) if (typeof rate !== 'string' || !RATE_MAP_VALUE.test(rate)) throw new TypeError('bad rate');
    return value;
  },
  parseValue: () => {
    throw new GraphQLError('RateMap is an output type only.');
  },
});

const RateRef = builder.objectRef<CurrencyConversion['rate']>('Rate').implement({
  description: 'The ECB reference rate a currency conversion used.',
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'Publication date of the rates actually used.', resolve: (r) => r.date }),
    source: t.exposeString('source', { description: 'Always "ecb".' }),
    value: t.field({ type: 'Decimal', description: 'The exact cross rate toRate ÷ fromRate (40 significant digits at most).', resolve: (r) => r.value }),
  }),
});

export const CurrencyConversionRef = builder.objectRef<CurrencyConversion>('CurrencyConversion').implement({
  description: 'The result of a currency conversion: value × toRate ÷ fromRate, exactly, rounded once if `decimals` is set.',
  fields: (t) => ({
    input: t.field({ type: QuantityRef, resolve: (c) => c.input }),
    result: t.field({ type: QuantityRef, resolve: (c) => c.result }),
    rate: t.field({ type: RateRef, resolve: (c) => c.rate }),
  }),
});

const RatesRef = builder.objectRef<RatesListing>('Rates').implement({
  description: 'One ECB publication of euro reference rates.',
  fields: (t) => ({
    date: t.field({ type: 'Date', resolve: (r) => r.date }),
    base: t.exposeString('base', { description: 'Always "EUR".' }),
    source: t.exposeString('source', { description: 'Always "ecb".' }),
    rates: t.field({ type: 'RateMap', resolve: (r) => r.rates }),
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
      decimals: t.arg.int({ required: false, validate: { schema: decimalsRule }, description: 'Round the result once to this many places (0 to 40).' }),
      rounding: t.arg({ type: RoundingEnum, required: false }),
      date: t.arg({ type: 'Date', required: false, description: 'Use the rates in effect on this day (the latest publication on or before it).' }),
    },
    resolve: async (_, args, ctx, info) => ctx.services.conversions.currency(args, await ctx.requestContext.caller(info.path.key as string)),
  }),
  rates: t.field({
    ...policy({ access: 'key' }),
    type: RatesRef,
    nullable: true,
    description: 'The ECB reference rates of a day (or the latest). Needs an API key; `date` needs the Developer plan. Uses no quota.',
    args: {
      date: t.arg({ type: 'Date', required: false }),
      symbols: t.arg.string({ required: false, description: 'Comma-separated currency codes to list (default: all).' }),
    },
    resolve: async (_, args, ctx) => {
      const caller = await ctx.requestContext.caller();
      return ctx.services.currency.rates(args, caller.principal.account.plan, caller.publications);
    },
  }),
  latestRates: t.field({
    ...policy({ access: 'public' }),
    type: RatesRef,
    nullable: true,
    description: 'The latest ECB reference rates. Public.',
    resolve: (_, __, ctx) => ctx.services.currency.latest(),
  }),
}));
