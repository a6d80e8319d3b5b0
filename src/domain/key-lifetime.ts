import { ApiError } from './errors';
import { isCalendarDate } from './dates';

/**
 * How long a key lives: an expiry fixed when it is created (an RFC 3339 time) and the grace an old
 * key keeps when it is rotated (a duration of at most 7 days). A key's end is the earlier of the two;
 * it is enforced by comparing the clock with it on every request, never by a cache's lifetime. Pure:
 * the clock is an argument. Every end is kept as `Date#toISOString()` text, so ends compare as strings.
 */

/** The longest grace a rotated key keeps (Stripe's limit for rolled keys too). */
export const MAX_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const DURATION = /^(?:(\d{1,6})d)?(?:(\d{1,6})h)?(?:(\d{1,6})m)?(?:(\d{1,6})s)?$/;

/**
 * A rotation's grace in milliseconds: `0` (the old key ends at once), or whole days, hours, minutes
 * and seconds in that order (`7d`, `24h`, `1h30m`, `90s`), at most 7 days. INVALID_REQUEST otherwise.
 */
export function parseGrace(text: string): number {
  const match = text === '0' ? ['0'] : DURATION.exec(text);
  if (!match || (text !== '0' && match.slice(1).every((part) => part === undefined))) {
    throw new ApiError(
      'INVALID_REQUEST',
      `The grace '${text.slice(0, 40)}' is not a duration: write 0, or a number with d, h, m or s, such as 1h, 24h or 7d.`,
      { param: 'grace' },
    );
  }
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  const ms = (days ?? 0) * UNIT_MS.d + (hours ?? 0) * UNIT_MS.h + (minutes ?? 0) * UNIT_MS.m + (seconds ?? 0) * UNIT_MS.s;
  if (ms > MAX_GRACE_MS)
    throw new ApiError('INVALID_REQUEST', `The grace '${text}' is longer than the 7 days a rotated key may keep working.`, {
      param: 'grace',
    });
  return ms;
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * An expiry given as an RFC 3339 time with its offset (`2027-01-31T00:00:00Z`,
 * `2027-01-31T09:00:00+09:00`), as the ISO text in UTC that is stored. It must be a real calendar
 * time and later than `now`; fractions beyond milliseconds are cut. INVALID_REQUEST otherwise.
 */
export function parseKeyExpiry(text: string, now: Date): string {
  const match = RFC3339.exec(text.toUpperCase());
  const [, date, hour, minute, second, fraction, , offsetHours, offsetMinutes] = match ?? [];
  const valid =
    match !== null &&
    isCalendarDate(date!) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    (offsetHours === undefined || (Number(offsetHours) <= 23 && Number(offsetMinutes) <= 59));
  if (!valid) {
    throw new ApiError(
      'INVALID_REQUEST',
      `The expiry '${text.slice(0, 40)}' is not an RFC 3339 time with an offset, such as 2027-01-31T00:00:00Z.`,
      { param: 'expires' },
    );
  }
  const millis = fraction === undefined ? '' : fraction.slice(0, 4);
  const at = new Date(Date.parse(`${date}T${hour}:${minute}:${second}${millis}${match[6]}`));
  if (at.getTime() <= now.getTime()) {
    throw new ApiError('INVALID_REQUEST', `The expiry ${at.toISOString()} is not in the future (now is ${now.toISOString()}).`, {
      param: 'expires',
    });
  }
  return at.toISOString();
}

/** The earlier of two ends, either of which may be absent (null: never). */
export function earlierEnd(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a <= b ? a : b;
}

/** True once `now` has reached the key's end (a key without one never expires). */
export function hasExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && now.getTime() >= Date.parse(expiresAt);
}

/** The graces the account page offers when a key is rotated (Stripe's and Unkey's choices up to 7 days). */
export const GRACE_CHOICES = ['0', '1h', '24h', '7d'] as const;
export type GraceChoice = (typeof GRACE_CHOICES)[number];

/** A grace the account page offers, in milliseconds; INVALID_REQUEST for any other text. */
export function parseGraceChoice(text: string): number {
  if (!(GRACE_CHOICES as readonly string[]).includes(text)) {
    throw new ApiError('INVALID_REQUEST', `Choose when the old key stops: ${GRACE_CHOICES.join(', ')} (got '${text.slice(0, 20)}').`, {
      param: 'grace',
    });
  }
  return parseGrace(text);
}

/** The lifetimes in days the account page offers for a new key (GitHub's presets for tokens). */
export const EXPIRY_DAY_CHOICES = [30, 60, 90] as const;

/**
 * A new key's end from the account page's choice: `none` (never: null), `30`, `60` or `90` days
 * from `now`, or `date` with `date` a calendar day (`YYYY-MM-DD`) after today's, the key stopping
 * at 00:00 UTC that day. INVALID_REQUEST otherwise.
 */
export function keyExpiryFromChoice(choice: string, date: string, now: Date): string | null {
  if (choice === 'none') return null;
  const days = EXPIRY_DAY_CHOICES.find((n) => String(n) === choice);
  if (days !== undefined) return new Date(now.getTime() + days * UNIT_MS.d).toISOString();
  if (choice !== 'date') {
    throw new ApiError(
      'INVALID_REQUEST',
      `Choose an expiry: none, ${EXPIRY_DAY_CHOICES.join(', ')} (days) or date (got '${choice.slice(0, 20)}').`,
      { param: 'expires' },
    );
  }
  if (!isCalendarDate(date)) {
    throw new ApiError('INVALID_REQUEST', `The expiry date '${date.slice(0, 20)}' is not a date such as 2027-01-31.`, {
      param: 'expiresOn',
    });
  }
  const at = new Date(`${date}T00:00:00.000Z`);
  if (at.getTime() <= now.getTime()) {
    throw new ApiError(
      'INVALID_REQUEST',
      `The expiry date ${date} is not after today (${now.toISOString().slice(0, 10)}, UTC): the key would never work.`,
      { param: 'expiresOn' },
    );
  }
  return at.toISOString();
}
