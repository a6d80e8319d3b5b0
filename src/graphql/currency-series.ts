import { SERIES_GROUPS, type SeriesGroup } from '../domain/currency/periods';
import type { FigureChange, PeriodFigures } from '../domain/currency/period-change';
import type { SeriesEntry } from '../domain/currency/series';
import { ApiError } from '../domain/errors';
import type { SeriesAnswer } from '../services/currency/series';
import type { RequestContext } from '../services/request-context';
import { builder } from './builder';
import { RatesSourceEnum } from './currencies';
import { CURRENCY_CODES } from '../domain/currency/codes';
import { listItems, policy } from './field-policy';
import { decimalsRule, RoundingEnum } from './units';

interface CurrencyCount {
  code: string;
  publications: number;
}

const CurrencyCountRef = builder.objectRef<CurrencyCount>('CurrencyCount').implement({
  description: 'A currency averaged over fewer publications than its period holds, and how many quoted it.',
  fields: (t) => ({
    code: t.exposeString('code'),
    publications: t.exposeInt('publications'),
  }),
});

const CHANGE =
  'last − first, from the exact rates: rounded once to `decimals` places when given, else exact within 40 significant digits (half-even past them).';
const CHANGE_PERCENT =
  '(last − first) ÷ first × 100, from the exact rates: rounded once to `decimals` places when given, else exact within 40 significant digits (half-even past them).';

const CurrencyPeriodFiguresRef = builder.objectRef<PeriodFigures & { code: string }>('CurrencyPeriodFigures').implement({
  description:
    "One currency's figures over one period of a grouped series: its first, last, lowest and highest rate, as published for base EUR without decimals (else the exact quotient rounded once), and its change from first to last.",
  fields: (t) => ({
    code: t.exposeString('code'),
    first: t.field({ type: 'Decimal', description: "The period's first rate.", resolve: (f) => f.first }),
    last: t.field({ type: 'Decimal', description: "The period's last rate.", resolve: (f) => f.last }),
    min: t.field({ type: 'Decimal', description: "The period's lowest rate (on a tie, the earliest).", resolve: (f) => f.min }),
    max: t.field({ type: 'Decimal', description: "The period's highest rate (on a tie, the earliest).", resolve: (f) => f.max }),
    change: t.field({ type: 'Decimal', description: CHANGE, resolve: (f) => f.change }),
    changePercent: t.field({ type: 'Decimal', description: CHANGE_PERCENT, resolve: (f) => f.changePercent }),
  }),
});

const CurrencyChangeRef = builder.objectRef<FigureChange & { code: string }>('CurrencyChange').implement({
  description:
    "One currency's change between the two ends of a series page (its fluctuation): from its first rate to its last, on the first and last publications of the page that quote it.",
  fields: (t) => ({
    code: t.exposeString('code'),
    start: t.field({ type: 'Date', description: 'The publication of the first rate.', resolve: (c) => c.start }),
    startRate: t.field({ type: 'Decimal', description: 'The first rate, printed as rates are.', resolve: (c) => c.startRate }),
    end: t.field({ type: 'Date', description: 'The publication of the last rate.', resolve: (c) => c.end }),
    endRate: t.field({ type: 'Decimal', description: 'The last rate, printed as rates are.', resolve: (c) => c.endRate }),
    change: t.field({ type: 'Decimal', description: CHANGE, resolve: (c) => c.change }),
    changePercent: t.field({ type: 'Decimal', description: CHANGE_PERCENT, resolve: (c) => c.changePercent }),
  }),
});

const RateSeriesEntryRef = builder.objectRef<SeriesEntry>('RateSeriesEntry').implement({
  description:
    'One entry of a rate series: one ECB publication (group "day"), or the exact mean of the publications of one ISO week, month, quarter or year, rounded once.',
  fields: (t) => ({
    period: t.exposeString('period', { description: 'The publication date (day), or "2024-W13", "2024-03", "2024".' }),
    start: t.field({ type: 'Date', description: 'The first publication the entry covers.', resolve: (e) => e.start }),
    end: t.field({ type: 'Date', description: 'The last publication the entry covers.', resolve: (e) => e.end }),
    publications: t.exposeInt('publications', { description: 'How many publications the entry covers (1 per day).' }),
    rates: t.field({ type: 'RateMap', description: 'Units of each currency per 1 unit of the base.', resolve: (e) => e.rates }),
    partial: t.field({
      ...listItems(CURRENCY_CODES.size),
      type: [CurrencyCountRef],
      description: "Currencies quoted by only some of the period's publications, each averaged over those; empty when none.",
      resolve: (e) => Object.entries(e.partial ?? {}).map(([code, publications]) => ({ code, publications })),
    }),
    figures: t.field({
      ...listItems(CURRENCY_CODES.size),
      type: [CurrencyPeriodFiguresRef],
      description:
        "Grouped entries: each currency's first, last, lowest and highest rate of the period and its change from first to last, in the order of `symbols`; empty per publication (group day).",
      resolve: (e) => Object.entries(e.figures ?? {}).map(([code, figures]) => ({ code, ...figures })),
    }),
  }),
});

/**
 * The periods of a series. An output type: the argument `group` stays a String, so that documents
 * declaring `$group: String` and inline `group: "month"` keep working; its values are these.
 */
const SeriesGroupEnum = builder.enumType('SeriesGroup', {
  description:
    'The entries of a series: one per publication (`day`), or the exact mean of the publications of each ISO week, month, quarter or year.',
  values: Object.fromEntries(SERIES_GROUPS.map((group) => [group, { value: group }])) as Record<SeriesGroup, { value: SeriesGroup }>,
});

const RateSeriesRef = builder.objectRef<SeriesAnswer>('RateSeries').implement({
  description: "A page of a time series of ECB reference rates (or of another source's, with `source`) against one base.",
  fields: (t) => ({
    start: t.field({
      type: 'Date',
      description: 'The first day this page covers (the range clipped to the stored history).',
      resolve: (s) => s.start,
    }),
    end: t.field({
      type: 'Date',
      description: 'The last day this page covers: at most 10 years after `start`, never after today.',
      resolve: (s) => s.end,
    }),
    base: t.exposeString('base'),
    group: t.field({ type: SeriesGroupEnum, resolve: (s) => s.group }),
    source: t.field({
      type: RatesSourceEnum,
      description: 'The source whose publication days and figures these are: the `source` asked for, "ecb" without it.',
      resolve: (s) => s.source,
    }),
    symbols: t.exposeStringList('symbols', {
      ...listItems(CURRENCY_CODES.size),
      description: 'The currencies of every entry, in order (the CSV columns).',
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description:
        'Pass as `cursor` for the next page, with the same other arguments and format (it is refused with any other); null on the last page.',
    }),
    complete: t.exposeBoolean('complete', {
      description:
        "True when the page ends before the next expected ECB publication: its answer will not change (barring an ECB correction). Always false for another source's series.",
    }),
    change: t.field({
      ...listItems(CURRENCY_CODES.size),
      type: [CurrencyChangeRef],
      description:
        "Each currency's change from its first rate of the page to its last (what other rate APIs call the fluctuation), in the order of `symbols`; a currency the page never quotes is absent.",
      resolve: (s) => Object.entries(s.change).map(([code, change]) => ({ code, ...change })),
    }),
    // Last: the JSON export writes every other member first, then the entries a chunk at a time.
    // Its pages are priced by the series export, as REST's are (series-exports.ts): one item here.
    entries: t.field({ ...listItems(1), type: [RateSeriesEntryRef], resolve: (s) => [...s.entries()] }),
  }),
});

/** The `source` argument of rateSeries and rateSeriesLink. */
export const SERIES_SOURCE_TEXT =
  "The series of this source: ecb (default), boc, nb, cnb, nbp, cbr, boi, imf or nbu (GET /v1/sources, `sources`). Another source's series has that source's publication days (of the tables quoting `symbols`; a weekly table's days are its own), `base` defaults to that source's base, and each rate is the exact quotient of two of its figures (its figure as published against its own base, one unit per base); a currency it does not quote in the range is RATE_NOT_FOUND naming the sources that do. Its pages are never `complete`.";

/**
 * rateSeries calls per request. One answer can be megabytes (ten years of every currency against
 * another base is millions of digits), so a document may hold one: fifty aliases of it would hold
 * fifty such answers in memory at once, past any bound a request's size could justify.
 */
const seriesCalls = new WeakMap<RequestContext, number>();

builder.queryFields((t) => ({
  rateSeries: t.field({
    ...policy({ access: 'key' }),
    type: RateSeriesRef,
    nullable: true,
    description:
      "Reference rates (the ECB's, or `source`'s) from `start` to `end`: one entry per publication, or exact means per ISO week, month, quarter or year, each with every currency's first, last, lowest and highest rate of the period and its change (`figures`); `change` gives each currency's change between the two ends of the page (its fluctuation), exactly, rounded once. Needs an API key and the Developer plan; uses no quota. Days, weeks and months: at most 10 years per call, `nextCursor` continues, with the same start, end, group, base, symbols, decimals, rounding and format only; quarters and years: any range in one call. One rateSeries per document. Here as over REST, a page that must be computed costs one request of the key's rate limit per 10,000 rates (publications × currencies, every currency ever quoted when `symbols` is absent), before the work; a complete page is then served from a cache until the rates change, for one request; a key has at most EXPORTS_IN_FLIGHT (default 2) pages computed or sent at once, past which it gets 429 RATE_LIMIT_EXCEEDED with Retry-After, and an instance at most EXPORTS_PER_INSTANCE, past which it answers 503 SERVICE_UNAVAILABLE with Retry-After.",
    args: {
      start: t.arg({ type: 'Date', required: true, description: 'First day of the range.' }),
      end: t.arg({ type: 'Date', required: false, description: 'Last day of the range; without it, the newest publication held.' }),
      base: t.arg.string({ required: false, description: 'Currency code the rates are expressed against; EUR by default.' }),
      symbols: t.arg.stringList({
        required: false,
        description: 'Currency codes to list, in this order (default: every currency quoted in the range).',
      }),
      group: t.arg.string({
        required: false,
        description: 'A SeriesGroup value: "day" (default: one entry per publication), "week" (ISO), "month", "quarter" or "year".',
      }),
      cursor: t.arg.string({ required: false, description: 'The `nextCursor` of the previous page.' }),
      decimals: t.arg.int({
        required: false,
        validate: { schema: decimalsRule },
        description:
          'Round each rate once, from its exact value, to this many places (0 to 40), as `convert` rounds; without it rates are as published (base EUR, per publication) or exact to 40 significant digits.',
      }),
      rounding: t.arg({ type: RoundingEnum, required: false, description: 'Rounding mode used with `decimals`; HALF_UP by default.' }),
      source: t.arg({ type: RatesSourceEnum, required: false, description: SERIES_SOURCE_TEXT }),
    },
    resolve: async (_, args, ctx) => {
      // Claimed before the first await: root fields start together, and only the first may run.
      const calls = (seriesCalls.get(ctx.requestContext) ?? 0) + 1;
      seriesCalls.set(ctx.requestContext, calls);
      if (calls > 1)
        throw new ApiError('INVALID_REQUEST', 'A document may ask for one rateSeries; send another request for another series.');
      const { principal } = await ctx.requestContext.caller();
      return ctx.services.seriesExports.page(args, principal.account.plan, principal.keyId, ctx.requestContext);
    },
  }),
}));
