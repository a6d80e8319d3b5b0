import { setImmediate as nextTurn } from 'node:timers/promises';
import { berlinDate } from '../../domain/calendar/berlin-time';
import { publishedRate } from '../../domain/currency/cross';
import { notQuoted, type Asked } from '../../domain/currency/not-quoted';
import type { QuoteSpans } from '../../domain/currency/registry';
import { FIRST_PUBLICATION, requireKnownCurrency } from '../../domain/currency/request';
import { seriesCodes, seriesEntries, SeriesFold, type SeriesEntry } from '../../domain/currency/series';
import { seriesChange } from '../../domain/currency/series-change';
import { isPageComplete } from '../../domain/currency/series-pages';
import type { Publication } from '../../domain/ecb';
import { ApiError, refusalWithNextStep } from '../../domain/errors';
import { planAllowsHistory, type PlanId } from '../../domain/plans';
import { allDates, datesBetween, type HistoryFactsOf } from './history';
import { requireLatest } from './publication';
import { ECB_ONLY, parseSource, type HeldSources } from './held-sources';
import type { RatesReader } from './rates';
import { sourceSeries } from './source-series';
import { pageWindow, seriesInputs } from './series-inputs';
import { entryChunks, type SeriesAnswer, type SeriesPlan, type SeriesQuery, type SeriesStream } from './series-shapes';

export { entryChunks, type SeriesAnswer, type SeriesPlan, type SeriesQuery, type SeriesStream } from './series-shapes';

/** A currency's rates over a range, a page at a time: each publication's, or exact means per period. */
export interface RateSeries {
  series(query: SeriesQuery, plan: PlanId): Promise<SeriesAnswer>;
  /** The page a series query asks for, checked and decided without reading a publication (what an export's cache key and cost are made of). */
  planSeries(query: SeriesQuery, plan: PlanId): SeriesPlan;
  /** The answer to a planned page: its publications read, its currencies checked. */
  answerSeries(plan: SeriesPlan): Promise<SeriesAnswer>;
  /** The same page to be written as it is read (an export): its columns and currencies checked first, its entries read a slice at a time. */
  streamSeries(plan: SeriesPlan): Promise<SeriesStream>;
}

/** `facts` (the whole history's quote spans) explain a currency not quoted in the range, and name an export's candidate columns. */
export function createRateSeries(rates: RatesReader, clock: () => Date, facts: HistoryFactsOf, held: HeldSources = ECB_ONLY): RateSeries {
  const ecb = pagesOfSeries(rates, clock, facts);
  const others = sourceSeries(rates, held, clock, facts);
  // `source` absent or "ecb": the ECB's series exactly as before (its cursors too).
  const planSeries = (query: SeriesQuery, account: PlanId): SeriesPlan => {
    const source = parseSource(query.source, held);
    return source === undefined || source === 'ecb' ? ecb.plan(query, account) : others.plan(query, account, source);
  };
  const answerSeries = (plan: SeriesPlan) => (plan.source === undefined ? ecb.answer(plan) : others.answer(plan, plan.source));
  const streamSeries = (plan: SeriesPlan) => (plan.source === undefined ? ecb.stream(plan) : others.stream(plan, plan.source));
  return { series: async (query, plan) => answerSeries(planSeries(query, plan)), planSeries, answerSeries, streamSeries };
}

/** The time series use case: a page planned from its query, then answered from the publications it covers. */
function pagesOfSeries(rates: RatesReader, clock: () => Date, facts: HistoryFactsOf) {
  /** Why a currency is refused for a span (notQuoted, with the whole history's quote spans). */
  const missing = async (code: string, asked: Asked, param: string): Promise<ApiError> =>
    notQuoted(code, asked, (await facts()).spans.spans.get(code), param);

  const plan = (query: SeriesQuery, account: PlanId): SeriesPlan => planOf(rates, clock, query, account);

  const answer = async (planned: SeriesPlan): Promise<SeriesAnswer> => {
    const { start, end, base, group, decimals, rounding, asked, nextCursor, complete } = planned;
    const publications = await loadInTurns(rates, planned.dates);
    if (publications.length === 0)
      throw new ApiError('RATE_NOT_FOUND', `There are no ECB publications from ${start} to ${end}.`, { param: 'start' });
    for (const code of [base, ...(asked ?? [])]) {
      if (!publications.some((pub) => publishedRate(pub, code)))
        throw await missing(code, { start, end }, code === base ? 'base' : 'symbols');
    }
    const codes = asked ?? seriesCodes(publications, base);
    const request = { base, codes, group, decimals, rounding };
    return {
      start,
      end,
      base,
      group,
      source: 'ecb',
      symbols: codes,
      nextCursor,
      complete,
      change: seriesChange(publications, request),
      entries: () => seriesEntries(publications, request),
      chunks: (budgetMs) => entryChunks(publications, new SeriesFold(request), budgetMs),
    };
  };

  const stream = async (planned: SeriesPlan): Promise<SeriesStream> => {
    const { start, end, base, group, decimals, rounding, asked, nextCursor, complete } = planned;
    // Without symbols, the columns are every code quoted in the range: the spans name the codes that
    // can be (computed as the rates change); without them, any code ever quoted can be.
    const held = facts.settled()?.spans;
    const candidates = asked ?? (held ? quotedBetween(held, start, end) : [...rates.knownCurrencies()]);
    const survey = await surveyPublications(rates, planned.dates, [base, ...candidates]);
    if (!survey.any) throw new ApiError('RATE_NOT_FOUND', `There are no ECB publications from ${start} to ${end}.`, { param: 'start' });
    for (const code of [base, ...(asked ?? [])]) {
      if (code !== 'EUR' && !survey.seen.has(code)) throw await missing(code, { start, end }, code === base ? 'base' : 'symbols');
    }
    const codes = asked ?? [...(base === 'EUR' ? [] : ['EUR']), ...[...survey.seen].filter((code) => code !== base)];
    const request = { base, codes, group, decimals, rounding };
    return {
      start,
      end,
      base,
      group,
      source: 'ecb',
      symbols: codes,
      nextCursor,
      complete,
      chunks: (budgetMs) => foldInTurns(rates, planned.dates, new SeriesFold(request), budgetMs),
    };
  };

  return { plan, answer, stream };
}

/** A page of the series planned from its query: inputs checked, the plan, the range, the cursor, the dates it covers. */
function planOf(rates: RatesReader, clock: () => Date, query: SeriesQuery, account: PlanId): SeriesPlan {
  const { start, endAsked, base, asked, decimals, rounding, range, cursor } = seriesInputs(query, 'EUR');
  const { group } = range;
  if (!planAllowsHistory(account)) throw refusalWithNextStep('PLAN_REQUIRED', 'Time series need the Developer plan or higher.');
  for (const code of [base, ...(asked ?? [])]) requireKnownCurrency(code, code === base ? 'base' : 'symbols', rates.knownCurrencies());
  const newest = requireLatest(rates).date;
  const end = endAsked ?? (newest < start ? start : newest);
  range.end = end;
  const held = allDates(rates);
  // The first page starts at the first publication held when the range starts before it.
  const first = held[0] ?? FIRST_PUBLICATION;
  const from = cursor ?? (start < first ? first : start);
  const today = berlinDate(clock());
  const { page, to, more, nextCursor } = pageWindow(range, from, cursor, today, 'ECB');
  // The last page of a query without `end` grows with each publication: never complete.
  const complete = isPageComplete(page, more, newest, clock()) && (more || !range.openEnd);
  return {
    start: from,
    end: to,
    base,
    group,
    decimals,
    rounding,
    asked,
    nextCursor,
    complete,
    dates: datesBetween(held, from, to),
  };
}

/** The codes whose quotes span some of [start, end] (a currency quoted with a gap may still have none there). */
function quotedBetween(spans: QuoteSpans, start: string, end: string): string[] {
  return [...spans.spans].filter(([, span]) => span.first <= end && span.last >= start).map(([code]) => code);
}

/**
 * The codes quoted in the publications of `dates`, in the order they first appear (seriesCodes'
 * order), read a slice at a time and only until every code of `wanted` has appeared: usually the
 * first slice; a code that is not quoted there costs a read of the whole range, never more memory
 * than a slice. `any` tells whether a publication was found at all.
 */
async function surveyPublications(
  rates: RatesReader,
  dates: readonly string[],
  wanted: readonly string[],
): Promise<{ seen: ReadonlySet<string>; any: boolean }> {
  const seen = new Set<string>();
  const missing = new Set(wanted.filter((code) => code !== 'EUR'));
  let any = false;
  for (let i = 0; i < dates.length && (missing.size > 0 || !any); i += LOAD_SLICE) {
    if (i > 0) await nextTurn();
    for (const pub of await rates.loadPublications(dates.slice(i, i + LOAD_SLICE))) {
      if (!pub) continue;
      any = true;
      for (const code of Object.keys(pub.rates)) {
        seen.add(code);
        missing.delete(code);
      }
    }
  }
  return { seen, any };
}

/**
 * The entries a fold of the publications of `dates` gives: a slice read per event-loop turn, and
 * folded in turns of at most about `budgetMs` of work (means of 40-digit quotients are the costly
 * part), each turn's entries one chunk.
 */
async function* foldInTurns(
  rates: RatesReader,
  dates: readonly string[],
  fold: SeriesFold,
  budgetMs: number,
): AsyncGenerator<SeriesEntry[]> {
  for (let i = 0; i < dates.length; i += LOAD_SLICE) {
    if (i > 0) await nextTurn();
    const slice = await rates.loadPublications(dates.slice(i, i + LOAD_SLICE));
    let started = performance.now();
    let chunk: SeriesEntry[] = [];
    for (const [j, pub] of slice.entries()) {
      const entry = pub && fold.add(pub);
      if (entry) chunk.push(entry);
      if (j === slice.length - 1 || performance.now() - started < budgetMs) continue;
      if (chunk.length > 0) yield chunk;
      chunk = [];
      await nextTurn();
      started = performance.now();
    }
    if (i + LOAD_SLICE >= dates.length) {
      const last = fold.end();
      if (last) chunk.push(last);
    }
    if (chunk.length > 0) yield chunk;
  }
}

/**
 * Publications read per cache call while a page is loaded: a read parses them on the event loop
 * (about 0.1 ms each from SQLite), so a page's reads take turns with other requests.
 */
const LOAD_SLICE = 32;

/** Whole publications for `dates`, a slice per event-loop turn; a date the cache does not hold is left out. */
async function loadInTurns(rates: RatesReader, dates: readonly string[]): Promise<Publication[]> {
  const out: Publication[] = [];
  for (let i = 0; i < dates.length; i += LOAD_SLICE) {
    if (i > 0) await nextTurn();
    for (const pub of await rates.loadPublications(dates.slice(i, i + LOAD_SLICE))) if (pub) out.push(pub);
  }
  return out;
}
