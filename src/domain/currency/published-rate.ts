import type { Publication } from '../ecb';
import { ApiError } from '../errors';

/** The source of the ECB's published rates. */
export const RATE_SOURCE = 'ecb';

/** Units of `code` per euro on that publication, exactly as published ("1" for EUR). */
export function rateOf(publication: Publication, code: string, param: string): string {
  if (code === 'EUR') return '1';
  const rate = publication.rates[code];
  if (rate === undefined) {
    throw new ApiError('RATE_NOT_FOUND', `The ECB did not quote ${code} on ${publication.date}.`, { param });
  }
  return rate;
}
