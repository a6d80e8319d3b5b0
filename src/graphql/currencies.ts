import type { DateResolution, NextPublication } from '../domain/currency/explain-date';
import { SOURCES } from '../domain/sources/catalog';
import type { SourceQuoteSpan } from '../domain/sources/registry';
import { SOURCE_IDS, type SourceId } from '../domain/sources/types';
import type { CurrencyEntry } from '../domain/currency/registry';
import type { Succession } from '../domain/currency/successions';
import { named, type Named } from '../services/names';
import { builder } from './builder';
import { CURRENCY_CODES } from '../domain/currency/codes';
import { listItems, policy } from './field-policy';
import { langArg, LocalizedNameRef, namesOf } from './names';

/**
 * The currencies registry (every currency the ECB has ever quoted) and the types that explain how
 * a date asked for resolved to a publication, shared by the rates listings and conversions.
 */

export const DateResolutionRef = builder.objectRef<DateResolution>('DateResolution').implement({
  description: 'How the day asked for resolved to the ECB publication used.',
  fields: (t) => ({
    requested: t.field({
      type: 'Date',
      description: 'The day asked for (without `date`: today in Europe/Berlin).',
      resolve: (r) => r.requested,
    }),
    publication: t.field({
      type: 'Date',
      description: 'The publication used: the latest on or before the day asked for.',
      resolve: (r) => r.publication,
    }),
    carriedForward: t.exposeBoolean('carriedForward', { description: 'True when the publication is an earlier day’s.' }),
    reason: t.string({
      nullable: true,
      description:
        'Why, when carried forward (null otherwise): "stale" (the rates held are behind the ECB calendar and the day asked is on or after the first publication missing; see missingPublications), "weekend", "holiday" (a TARGET closing day), "not-yet-published" (a business day after the newest publication, not due yet or within two hours of its 16:00) or "no-publication" (a business day the ECB did not publish).',
      resolve: (r) => r.reason ?? null,
    }),
    missingPublications: t.int({
      nullable: true,
      description:
        'When the reason is "stale": the publications the ECB calendar expected by now (their 16:00 Europe/Berlin passed) that are not held. Null otherwise.',
      resolve: (r) => r.missingPublications ?? null,
    }),
  }),
});

export const NextPublicationRef = builder.objectRef<NextPublication>('NextPublication').implement({
  description:
    'The next ECB publication the rates held lack: while none is due, the next TARGET business day’s at 16:00 Europe/Berlin, a moment to come; while some are due and not held, the first of them, a moment past, overdue. Never both to come and overdue.',
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'The business day it belongs to.', resolve: (n) => n.date }),
    expectedAt: t.exposeString('expectedAt', {
      description: 'The expected moment (16:00 Europe/Berlin that day), an ISO 8601 instant in UTC.',
    }),
    overdue: t.exposeBoolean('overdue', {
      description: 'True when it is due (its 16:00 passed) and not held yet: the rates held are behind.',
    }),
    missingPublications: t.exposeInt('missingPublications', {
      description: 'Publications due (their 16:00 passed) and not held; 0 when the rates are current.',
    }),
  }),
});

/** Where the rates of a listing (`Rates`, `RateSeries`) come from: one source, named on the wire as it is here. */
export const RatesSourceEnum = builder.enumType('RatesSource', {
  description:
    'A publisher of official rates (GET /v1/sources, `sources`). Each figure served is one publication of one of them, as published.',
  values: Object.fromEntries(
    SOURCES.map((s) => [s.id, { value: s.id, description: `${s.publisher}: ${s.tables.map((t) => t.schedule.description).join(' ')}` }]),
  ) as Record<SourceId, { value: SourceId; description: string }>,
});

const SuccessionKindEnum = builder.enumType('SuccessionKind', {
  description: '`euro`: replaced by the euro at an irrevocable rate; `redenomination`: a new unit worth a fixed number of old ones.',
  values: { euro: { value: 'euro' }, redenomination: { value: 'redenomination' } },
});

export const SuccessionRef = builder.objectRef<Succession>('Succession').implement({
  description: 'The currency that replaced this one by law, and the fixed rate.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The code of the currency replaced.' }),
    successor: t.exposeString('successor', { description: 'The code of the currency that replaced it.' }),
    rate: t.field({
      type: 'Decimal',
      description: 'Units of the old currency per ONE unit of the successor, as the legal text writes it ("7.53450": 1 EUR = 7.53450 HRK).',
      resolve: (s) => s.rate,
    }),
    since: t.field({ type: 'Date', description: 'The first day the successor was the currency.', resolve: (s) => s.since }),
    kind: t.field({ type: SuccessionKindEnum, resolve: (s) => s.kind }),
    source: t.exposeString('source', { description: 'The legal act that fixed the rate.' }),
  }),
});

const CurrencyStatusEnum = builder.enumType('CurrencyStatus', {
  description: '`active`: quoted in the newest ECB publication held (EUR always); `retired`: no longer quoted by the ECB.',
  values: { active: { value: 'active' }, retired: { value: 'retired' } },
});

const CurrencySourceRef = builder.objectRef<SourceQuoteSpan>('CurrencySource').implement({
  description: "One source's quotes of a currency.",
  fields: (t) => ({
    source: t.field({ type: RatesSourceEnum, resolve: (s) => s.source }),
    first: t.field({ type: 'Date', description: 'Its first stored publication quoting the currency.', resolve: (s) => s.first }),
    last: t.field({ type: 'Date', description: 'Its last stored publication quoting the currency.', resolve: (s) => s.last }),
  }),
});

const CurrencyRef = builder.objectRef<Named<CurrencyEntry & { sources?: readonly SourceQuoteSpan[] }>>('Currency').implement({
  description:
    'A currency a served source has quoted (the ECB in its euro reference rates, or another official publisher), or one the law replaced.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'ISO 4217 code, upper case.' }),
    name: t.exposeString('name', { description: 'English name.' }),
    localName: t.field({
      type: LocalizedNameRef,
      description:
        'The name in the language asked for, from ICU (Intl.DisplayNames); the English name (`localized: false`) where ICU has none.',
      resolve: (c) => c.names.currency(c),
    }),
    numericCode: t.exposeString('numericCode', { nullable: true, description: 'ISO 4217 numeric code ("840").' }),
    minorUnits: t.exposeInt('minorUnits', { nullable: true, description: 'ISO 4217 minor units (decimal places).' }),
    firstDate: t.field({
      type: 'Date',
      nullable: true,
      description: 'The first stored publication of any source that quotes it.',
      resolve: (c) => c.firstDate,
    }),
    lastDate: t.field({
      type: 'Date',
      nullable: true,
      description: 'The last stored publication of any source that quotes it.',
      resolve: (c) => c.lastDate,
    }),
    status: t.field({ type: CurrencyStatusEnum, resolve: (c) => c.status }),
    sources: t.field({
      ...listItems(SOURCE_IDS.length),
      type: [CurrencySourceRef],
      description: 'Each source that quotes it, with its first and last publication quoting it, in the order a conversion tries them.',
      resolve: (c) => c.sources ?? [],
    }),
    successor: t.field({
      type: SuccessionRef,
      nullable: true,
      description: 'For a currency replaced by the euro or a redenomination.',
      resolve: (c) => c.successor,
    }),
  }),
});

builder.queryFields((t) => ({
  currencies: t.field({
    ...policy({ access: 'public', items: CURRENCY_CODES.size }),
    type: [CurrencyRef],
    nullable: true,
    description:
      'Every currency a served source has ever quoted (or the law replaced), EUR first, then by code, each with its sources; or those named `name`. Public.',
    args: {
      name: t.arg.string({
        required: false,
        description: 'Only the currencies of this name in the language asked for (`Schweizer Franken` with `lang: "de"`), any case.',
      }),
      lang: langArg(t),
    },
    resolve: async (_, { name, lang }, ctx) => {
      const names = namesOf(ctx, lang);
      const registry = await ctx.services.currencyRegistry.listCurrencies();
      return (name === null || name === undefined ? registry : names.findCurrencies(registry, name)).map((c) => named(c, names));
    },
  }),
  currency: t.field({
    ...policy({ access: 'public' }),
    type: CurrencyRef,
    nullable: true,
    description: 'One currency of the registry. Public.',
    args: { code: t.arg.string({ required: true, description: 'Three-letter currency code, case-insensitive.' }), lang: langArg(t) },
    resolve: async (_, args, ctx) => {
      const names = namesOf(ctx, args.lang);
      return named(await ctx.services.currencyRegistry.getCurrency(args.code), names);
    },
  }),
}));
