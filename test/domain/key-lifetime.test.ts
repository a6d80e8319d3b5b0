import { describe, expect, it } from 'vitest';
import {
  earlierEnd,
  hasExpired,
  keyExpiryFromChoice,
  MAX_GRACE_MS,
  parseGrace,
  parseGraceChoice,
  parseKeyExpiry,
} from '../../src/domain/key-lifetime';
import { expectApiError } from './helpers';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const HOUR = 3_600_000;

describe('parseGrace', () => {
  it.each([
    ['0', 0],
    ['1h', HOUR],
    ['24h', 24 * HOUR],
    ['7d', MAX_GRACE_MS],
    ['1d12h', 36 * HOUR],
    ['1h30m', 1.5 * HOUR],
    ['90s', 90_000],
    ['0h', 0],
    ['168h', MAX_GRACE_MS],
    ['6d23h59m59s', MAX_GRACE_MS - 1000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseGrace(text)).toBe(ms);
  });

  it.each(['', '1', '-1h', '1.5h', '1w', 'h', '1H', '30m1h', '1h ', ' 1h', '8d', '7d1s', '169h', '604801s', '9999999d', '1h1h'])(
    'refuses %j as INVALID_REQUEST on grace',
    (text) => {
      expectApiError(() => parseGrace(text), 'INVALID_REQUEST', 'grace');
    },
  );
});

describe('parseKeyExpiry', () => {
  it.each([
    ['2027-01-31T00:00:00Z', '2027-01-31T00:00:00.000Z'],
    ['2027-01-31T09:00:00+09:00', '2027-01-31T00:00:00.000Z'],
    ['2026-11-20T07:00:01-05:00', '2026-11-20T12:00:01.000Z'],
    ['2027-01-31t00:00:00z', '2027-01-31T00:00:00.000Z'],
    ['2026-11-20T12:00:00.5Z', '2026-11-20T12:00:00.500Z'],
    ['2026-11-20T12:00:00.123456789Z', '2026-11-20T12:00:00.123Z'],
    ['2028-02-29T23:59:59Z', '2028-02-29T23:59:59.000Z'],
  ])('reads %j as %j', (text, iso) => {
    expect(parseKeyExpiry(text, NOW)).toBe(iso);
  });

  it.each([
    '2027-01-31',
    '2027-01-31T00:00:00',
    '2027-01-31 00:00:00Z',
    '2027-02-29T00:00:00Z',
    '2027-13-01T00:00:00Z',
    '2027-01-31T24:00:00Z',
    '2027-01-31T00:60:00Z',
    '2027-01-31T00:00:60Z',
    '2027-01-31T00:00:00+24:00',
    '2027-01-31T00:00:00+0100',
    '+2027-01-31T00:00:00Z',
    '1e12',
    '',
  ])('refuses %j as INVALID_REQUEST on expires', (text) => {
    expectApiError(() => parseKeyExpiry(text, NOW), 'INVALID_REQUEST', 'expires');
  });

  it.each(['2026-11-20T12:00:00Z', '2026-11-20T11:59:59.999Z', '2000-01-01T00:00:00Z'])('refuses %j: not after now', (text) => {
    const error = expectApiError(() => parseKeyExpiry(text, NOW), 'INVALID_REQUEST', 'expires');
    expect(error.message).toContain('not in the future');
  });
});

describe('a key end', () => {
  it.each([
    [null, null, null],
    ['2027-01-01T00:00:00.000Z', null, '2027-01-01T00:00:00.000Z'],
    [null, '2027-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2027-01-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
  ])('the earlier of %j and %j is %j', (a, b, end) => {
    expect(earlierEnd(a, b)).toBe(end);
  });

  it.each([
    [null, false],
    ['2026-11-20T12:00:00.001Z', false],
    ['2026-11-20T12:00:00.000Z', true],
    ['2026-11-20T11:00:00.000Z', true],
  ])('a key ending at %j has expired at noon: %s', (end, expired) => {
    expect(hasExpired(end, NOW)).toBe(expired);
  });
});

describe("the account page's choices", () => {
  it.each([
    ['0', 0],
    ['1h', HOUR],
    ['24h', 24 * HOUR],
    ['7d', MAX_GRACE_MS],
  ])('grace %j is %d ms', (text, ms) => {
    expect(parseGraceChoice(text)).toBe(ms);
  });

  it.each(['', '2h', '1d', '90s', '7d '])('grace %j is not offered: INVALID_REQUEST on grace', (text) => {
    expectApiError(() => parseGraceChoice(text), 'INVALID_REQUEST', 'grace');
  });

  it.each([
    ['none', '', null],
    ['30', '', '2026-12-20T12:00:00.000Z'],
    ['60', '', '2027-01-19T12:00:00.000Z'],
    ['90', '', '2027-02-18T12:00:00.000Z'],
    ['date', '2026-11-21', '2026-11-21T00:00:00.000Z'],
    ['date', '2028-02-29', '2028-02-29T00:00:00.000Z'],
  ])('expiry %j (date %j) ends at %s', (choice, date, end) => {
    expect(keyExpiryFromChoice(choice, date, NOW)).toBe(end);
  });

  it.each([
    ['45', '', 'expires'],
    ['', '', 'expires'],
    ['date', '', 'expiresOn'],
    ['date', '2026-11-20', 'expiresOn'],
    ['date', '2027-02-29', 'expiresOn'],
    ['date', '2027-1-5', 'expiresOn'],
  ])('expiry %j (date %j) is INVALID_REQUEST on %s', (choice, date, param) => {
    expectApiError(() => keyExpiryFromChoice(choice, date, NOW), 'INVALID_REQUEST', param);
  });
});
