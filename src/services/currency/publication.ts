import type DataLoader from 'dataloader';
import { berlinDate } from '../../domain/calendar/berlin-time';
import { memoizedDateExplainer, memoizedLatestExplanation, type DateResolution } from '../../domain/currency/explain-date';
import { notQuoted } from '../../domain/currency/not-quoted';
import { requirePossibleDate } from '../../domain/currency/request';
import type { Publication } from '../../domain/ecb';
import { ApiError } from '../../domain/errors';
import type { HistoryFacts } from './history';
import type { RatesReader } from './rates';

/** The publications one request reads, by date, each fetched once. */
export type PublicationLoader = DataLoader<string, Publication | undefined>;

/** Where a publication of an exact date is read: a request's loader, or the rates themselves. */
export type PublicationSource = Pick<PublicationLoader, 'load'>;

/** Seconds a client should wait before asking again while no rates have ever been loaded. */
const RATES_RETRY_AFTER_SECONDS = 60;

const ratesUnavailable = (): ApiError =>
  new ApiError('SERVICE_UNAVAILABLE', 'Currency rates are not loaded yet; retry later.', {
    retryAfterSeconds: RATES_RETRY_AFTER_SECONDS,
  });

/** The newest publication held; SERVICE_UNAVAILABLE while none has ever been loaded. */
export function requireLatest(rates: RatesReader): Publication {
  const latest = rates.latest();
  if (!latest) throw ratesUnavailable();
  return latest;
}

/** Reads each date from the rates directly, for a caller without a request's loader. */
export function directReads(rates: RatesReader): PublicationSource {
  return { load: async (date) => (await rates.loadPublications([date]))[0] };
}

/**
 * The publication in effect on `date` (or the latest): one rule for every answer that uses rates,
 * currency conversions, rate listings and unit expressions alike. Callers have checked the inputs
 * and the plan.
 */
export async function resolvePublication(
  rates: RatesReader,
  clock: () => Date,
  date: string | undefined,
  loader: PublicationSource,
): Promise<Publication> {
  if (date !== undefined) requirePossibleDate(date, berlinDate(clock()));
  const latest = requireLatest(rates);
  if (date === undefined) return latest;
  const resolved = rates.resolveDate(date);
  const publication = resolved === undefined ? undefined : await loader.load(resolved);
  if (!publication) throw new ApiError('RATE_NOT_FOUND', `There are no ECB rates on or before ${date}.`, { param: 'date' });
  return publication;
}

/** What every answer that used a publication says of it, currency conversions and unit expressions alike. */
export interface PublicationExplainer {
  /** How `date` (or today in Berlin, without one) resolved to `publication`. */
  resolution(date: string | undefined, publication: Publication): DateResolution;
  /**
   * RATE_NOT_FOUND for the first of `codes` (each with the input it came from) that `publication`
   * does not quote, saying when the currency was last quoted and the fixed rate to use; nothing
   * when all are quoted.
   */
  requireQuoted(publication: Publication, codes: readonly (readonly [code: string, param: string])[]): Promise<void>;
}

/** `facts` (the quote spans of the whole history) are read only when a currency is not quoted. */
export function createPublicationExplainer(
  rates: RatesReader,
  clock: () => Date,
  facts: () => Promise<HistoryFacts>,
): PublicationExplainer {
  const latestExplanation = memoizedLatestExplanation();
  const explainDate = memoizedDateExplainer();
  return {
    resolution(date, publication) {
      const newest = rates.latest()?.date ?? publication.date;
      return date === undefined ? latestExplanation(newest, clock()).resolved : explainDate(date, publication.date, newest, clock());
    },
    async requireQuoted(publication, codes) {
      const absent = codes.find(([code]) => code !== 'EUR' && publication.rates[code] === undefined);
      if (absent) throw notQuoted(absent[0], { date: publication.date }, (await facts()).spans.spans.get(absent[0]), absent[1]);
    },
  };
}
