import { berlinDate } from '../domain/calendar/berlin-time';
import { requirePossibleDate } from '../domain/currency/request';
import type { Publication } from '../domain/ecb';
import { ApiError } from '../domain/errors';
import type { PublicationLoader } from './currency';
import type { RatesReader } from './rates';

/** Seconds a client should wait before asking again while no rates have ever been loaded. */
export const RATES_RETRY_AFTER_SECONDS = 60;

export const ratesUnavailable = (): ApiError =>
  new ApiError('SERVICE_UNAVAILABLE', 'Currency rates are not loaded yet; retry later.', {
    retryAfterSeconds: RATES_RETRY_AFTER_SECONDS,
  });

/**
 * The publication in effect on `date` (or the latest): one rule for every answer that uses rates,
 * currency conversions and unit expressions alike. Callers have checked the inputs and the plan.
 */
export async function resolvePublication(
  rates: RatesReader, clock: () => Date, date: string | undefined, loader: PublicationLoader,
): Promise<Publication> {
  if (date !== undefined) requirePossibleDate(date, berlinDate(clock()));
  const latest = rates.latest();
  if (!latest) throw ratesUnavailable();
  if (date === undefined) return latest;
  const resolved = rates.resolveDate(date);
  const publication = resolved === undefined ? undefined : await loader.load(resolved);
  if (!publication) throw new ApiError('RATE_NOT_FOUND', `There are no ECB rates on or before ${date}.`, { param: 'date' });
  return publication;
}
