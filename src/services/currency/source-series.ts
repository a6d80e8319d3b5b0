import { berlinDate } from '../../domain/calendar/berlin-time';
import { requireKnownCurrency } from '../../domain/currency/request';
import { seriesEntries, SeriesFold, type SeriesRequest } from '../../domain/currency/series';
import { seriesChange } from '../../domain/currency/series-change';
import { sourceDay, type SeriesDay } from '../../domain/currency/series-day';
import { ApiError, refusalWithNextStep } from '../../domain/errors';
import { planAllowsHistory, type PlanId } from '../../domain/plans';
import { sourceInfo } from '../../domain/sources/catalog';
import type { SourceHistory, SourceSpan } from '../../domain/sources/history';
import type { SourceId } from '../../domain/sources/types';
import { sourceCodes, type HeldSources } from './held-sources';
import { pageWindow, seriesInputs } from './series-inputs';
import { datesBetween, type HistoryFactsOf } from './history';
import type { RatesReader } from './rates';
import { entryChunks, type SeriesAnswer, type SeriesPlan, type SeriesQuery, type SeriesStream } from './series-shapes';

/** Each table of a source: its publication days (oldest first) and, per day, the codes it quotes (its base first). */
type TableDays = Map<string, Map<string, string[]>>;

const indexCache = new WeakMap<SourceHistory, Map<SourceId, TableDays>>();

const revisions = new WeakMap<SourceHistory, number>();
let lastRevision = 0;

/** A number this process gives each history it plans from, once: a new history (a new publication, a correction) has a new one. */
function revisionOf(history: SourceHistory): number {
  let revision = revisions.get(history);
  if (revision === undefined) revisions.set(history, (revision = ++lastRevision));
  return revision;
}

/** The days each table of `source` published, with their codes, computed once per history. */
function tableDays(history: SourceHistory, source: SourceId): TableDays {
  let bySource = indexCache.get(history);
  if (!bySource) indexCache.set(history, (bySource = new Map()));
  let tables = bySource.get(source);
  if (tables) return tables;
  tables = new Map();
  const pubs = [...history.publications()].filter((pub) => pub.source === source);
  pubs.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  for (const pub of pubs) {
    let days = tables.get(pub.table);
    if (!days) tables.set(pub.table, (days = new Map()));
    days.set(pub.date, [pub.base, ...Object.keys(pub.figures)]);
  }
  bySource.set(source, tables);
  return tables;
}

/** Whether any day of a table quotes `code`. */
const tableQuotes = (days: Map<string, string[]>, code: string): boolean => [...days.values()].some((codes) => codes.includes(code));

/**
 * The days of a source's series: the publication days of the tables that quote an asked symbol
 * (of every table without symbols), oldest first, each with the codes its publications quote.
 */
function seriesDays(history: SourceHistory, source: SourceId, asked: readonly string[] | undefined): Map<string, string[]> {
  const merged = new Map<string, string[]>();
  for (const days of tableDays(history, source).values()) {
    if (asked && !asked.some((code) => tableQuotes(days, code))) continue;
    for (const [date, codes] of days) merged.set(date, [...(merged.get(date) ?? []), ...codes]);
  }
  return new Map([...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const overlaps = (span: SourceSpan | undefined, start: string, end: string): boolean =>
  span !== undefined && span.first <= end && span.last >= start;

/** The served sources that quote `code` somewhere in the range (each with its own base), for a RATE_NOT_FOUND. */
async function quoting(held: HeldSources, facts: HistoryFactsOf, code: string, start: string, end: string): Promise<SourceId[]> {
  const ecbSpans = (await facts()).spans.spans;
  const history = held.history();
  const spanOf = (id: SourceId) =>
    id !== 'ecb' ? history.quoted(id).get(code) : code === 'EUR' ? { first: start, last: end } : ecbSpans.get(code);
  return held.enabled().filter((id) => overlaps(spanOf(id), start, end));
}

/** A page of a source's series planned from its query, as the ECB's is (series.ts planOf): inputs checked, range, cursor, days. */
function planSourcePage(
  rates: RatesReader,
  held: HeldSources,
  clock: () => Date,
  query: SeriesQuery,
  account: PlanId,
  source: SourceId,
): SeriesPlan {
  const { start, endAsked, base, asked, decimals, rounding, range, cursor } = seriesInputs(query, sourceInfo(source).base, source);
  const { group } = range;
  if (!planAllowsHistory(account)) throw refusalWithNextStep('PLAN_REQUIRED', 'Time series need the Developer plan or higher.');
  const history = held.history();
  const known = new Set([...rates.knownCurrencies(), ...sourceCodes(history)]);
  for (const code of [base, ...(asked ?? [])]) requireKnownCurrency(code, code === base ? 'base' : 'symbols', known);
  // No table quoting the symbols: the source's days, so that the answer names who does quote them.
  const wanted = seriesDays(history, source, asked);
  const codesOn = wanted.size > 0 ? wanted : seriesDays(history, source, undefined);
  const days = [...codesOn.keys()];
  const newest = days.at(-1);
  if (newest === undefined)
    throw new ApiError('RATE_NOT_FOUND', `There are no ${source} publications held.`, { param: 'source', seeAlso: 'sources' });
  const end = endAsked ?? (newest < start ? start : newest);
  range.end = end;
  const from = cursor ?? (start < days[0]! ? days[0]! : start);
  const today = berlinDate(clock());
  const { to, nextCursor } = pageWindow(range, from, cursor, today, source);
  const dates = datesBetween(days, from, to);
  const quoted = new Set(dates.flatMap((date) => codesOn.get(date) ?? []));
  quoted.delete(base);
  return {
    start: from,
    end: to,
    base,
    group,
    decimals,
    rounding,
    asked,
    nextCursor,
    complete: false,
    dates,
    source,
    sourceRevision: revisionOf(history),
    quotedCurrencies: quoted.size,
  };
}

/** The page's days, its currencies checked: RATE_NOT_FOUND naming the sources that quote a currency it does not. */
async function daysOf(
  held: HeldSources,
  facts: HistoryFactsOf,
  planned: SeriesPlan,
  source: SourceId,
): Promise<{ days: SeriesDay[]; request: SeriesRequest }> {
  const { start, end, base, group, decimals, rounding, asked } = planned;
  const history = held.history();
  const codesOn = seriesDays(history, source, asked);
  const days = planned.dates.map((date) => sourceDay(history, source, date, codesOn.get(date) ?? []));
  if (days.length === 0)
    throw new ApiError('RATE_NOT_FOUND', `There are no ${source} publications from ${start} to ${end}.`, { param: 'start' });
  const check = [base, ...(asked ?? [])];
  for (const code of check) {
    const quoted = code === base ? days.some((day) => day.quotes(base)) : days.some((day) => day.cross(code, base));
    if (quoted) continue;
    const others = (await quoting(held, facts, code, start, end)).filter((id) => id !== source);
    const what = code === base ? base : `${code} against ${base}`;
    const named = others.length === 0 ? ' No source does.' : ` Sources that quote ${code} then: ${others.join(', ')}.`;
    throw new ApiError('RATE_NOT_FOUND', `${source} does not quote ${what} from ${start} to ${end}.${named}`, {
      param: code === base ? 'base' : 'symbols',
      seeAlso: 'sources',
    });
  }
  const seen = new Set<string>();
  for (const day of days) for (const code of day.codes()) seen.add(code);
  seen.delete(base);
  const codes = asked ?? [...seen];
  return { days, request: { base, codes, group, decimals, rounding } };
}

/**
 * The series of one source other than the ECB (contract §13): its own days, each figure its own,
 * a symbol against a base the exact quotient of two figures of that source. Its pages are planned
 * and cursored as the ECB's, and never `complete` (no client caches them: a source corrects a past
 * day without notice); the export cache keeps them under the revision of the publications they were
 * planned from, so a page is computed once per revision (series-exports.ts).
 */
export function sourceSeries(rates: RatesReader, held: HeldSources, clock: () => Date, facts: HistoryFactsOf) {
  const plan = (query: SeriesQuery, account: PlanId, source: SourceId): SeriesPlan =>
    planSourcePage(rates, held, clock, query, account, source);

  const streamOf = (planned: SeriesPlan, source: SourceId, days: SeriesDay[], request: SeriesRequest): SeriesStream => {
    const { start, end, base, group, nextCursor, complete } = planned;
    return {
      start,
      end,
      base,
      group,
      source,
      symbols: [...request.codes],
      nextCursor,
      complete,
      chunks: (budgetMs) => entryChunks(days, new SeriesFold(request), budgetMs),
    };
  };

  const stream = async (planned: SeriesPlan, source: SourceId): Promise<SeriesStream> => {
    const { days, request } = await daysOf(held, facts, planned, source);
    return streamOf(planned, source, days, request);
  };

  const answer = async (planned: SeriesPlan, source: SourceId): Promise<SeriesAnswer> => {
    const { days, request } = await daysOf(held, facts, planned, source);
    return {
      ...streamOf(planned, source, days, request),
      change: seriesChange(days, request),
      entries: () => seriesEntries(days, request),
    };
  };

  return { plan, answer, stream };
}
