import { createHmac, hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import { secretBox } from '../../src/domain/secret-box';
import { carriesLink, linkEnd, openSignedQuery, signedQuery } from '../../src/domain/signed-links';

/** A made-up signing key and link terms (not from any deployment). */
const KEY = Buffer.alloc(32, 3);
const PATH = '/v1/currency/rates/series';
const TERMS = { path: PATH, params: { start: '2024-03-01', symbols: 'USD,JPY', format: 'csv' }, keyId: 'key_abc', expires: 1_712_300_000 };
const BEFORE = new Date(1_712_299_999_000);

const params = (query: string) => new URLSearchParams(query);

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof ApiError ? error.code : 'not an ApiError';
  }
}

describe('signed link queries', () => {
  it('list the terms sorted by name, percent-encoded, then the HMAC-SHA256 of method, path and the rest', () => {
    const query = signedQuery(KEY, TERMS);
    const canonical = 'expires=1712300000&format=csv&keyId=key_abc&start=2024-03-01&symbols=USD%2CJPY';
    const expected = createHmac('sha256', KEY).update(`measurement-api signed link v1\nGET ${PATH}\n${canonical}`).digest('base64url');
    expect(query).toBe(`${canonical}&signature=${expected}`);
  });

  it("open to the request's own parameters and the key id, however the values were encoded and ordered", () => {
    const query = signedQuery(KEY, TERMS);
    const reordered = query.split('&').reverse().join('&').replace('USD%2CJPY', 'USD,JPY');
    for (const text of [query, reordered]) {
      const opened = openSignedQuery(KEY, PATH, params(text), BEFORE);
      expect(opened.keyId).toBe('key_abc');
      expect(Object.fromEntries(opened.params)).toEqual(TERMS.params);
      expect(opened.expiresAt.toISOString()).toBe('2024-04-05T06:53:20.000Z');
    }
  });

  it.each([
    ['a changed value', (q: string) => q.replace('2024-03-01', '2024-03-02')],
    ['an added parameter', (q: string) => `${q}&base=USD`],
    ['a removed parameter', (q: string) => q.replace('format=csv&', '')],
    ['a repeated parameter', (q: string) => `${q}&start=2024-03-01`],
    ['a later expiry', (q: string) => q.replace('1712300000', '1712400000')],
    ['no signature', (q: string) => q.replace(/&signature=.*$/, '')],
    ['a signature of another length', (q: string) => `${q}AA`],
    ['an empty signature', (q: string) => q.replace(/signature=.*$/, 'signature=')],
  ])('refuse %s: LINK_INVALID', (_, change) => {
    expect(codeOf(() => openSignedQuery(KEY, PATH, params(change(signedQuery(KEY, TERMS))), BEFORE))).toBe('LINK_INVALID');
  });

  it('refuse another path, and another key', () => {
    const query = signedQuery(KEY, TERMS);
    expect(codeOf(() => openSignedQuery(KEY, '/v1/currency/rates', params(query), BEFORE))).toBe('LINK_INVALID');
    expect(codeOf(() => openSignedQuery(Buffer.alloc(32, 4), PATH, params(query), BEFORE))).toBe('LINK_INVALID');
  });

  it('expire at their expiry, to the second: LINK_EXPIRED, named in the message', () => {
    const query = params(signedQuery(KEY, TERMS));
    expect(codeOf(() => openSignedQuery(KEY, PATH, query, new Date(1_712_299_999_999)))).toBeUndefined();
    expect(codeOf(() => openSignedQuery(KEY, PATH, query, new Date(1_712_300_000_000)))).toBe('LINK_EXPIRED');
    expect(() => openSignedQuery(KEY, PATH, query, new Date(1_712_300_000_000))).toThrow(
      'The signed link expired at 2024-04-05T06:53:20.000Z',
    );
  });

  it('are told apart from other queries by any of their own parameters', () => {
    expect(carriesLink(params('start=2024-03-01&end=2024-03-31'))).toBe(false);
    for (const name of ['keyId', 'expires', 'signature']) expect(carriesLink(params(`start=2024-03-01&${name}=x`))).toBe(true);
  });
});

describe('keys derived from the secret box', () => {
  it('are HKDF-SHA256 of the box key under the label: the same on every instance, distinct per label', () => {
    const box = secretBox(Buffer.alloc(32, 9));
    expect(box.derive('series links v1')).toEqual(
      Buffer.from(hkdfSync('sha256', Buffer.alloc(32, 9), Buffer.alloc(0), 'measurement-api series links v1', 32)),
    );
    expect(secretBox(Buffer.alloc(32, 9)).derive('series links v1')).toEqual(box.derive('series links v1'));
    expect(box.derive('another use')).not.toEqual(box.derive('series links v1'));
    expect(box.derive('series links v1')).not.toEqual(Buffer.alloc(32, 9));
  });
});

describe('linkEnd: a link lasts a day by default, 60 s to 7 days, never past its key', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const at = Date.parse('2026-01-01T00:00:00Z') / 1000;
  it.each([
    [undefined, null, at + 86_400],
    [60, null, at + 60],
    [604_800, null, at + 604_800],
    [604_800, '2026-01-02T00:00:00Z', at + 86_400],
  ] as const)('expiresIn %s with the key ending %s → %s', (expiresIn, keyEnd, end) => {
    expect(linkEnd(expiresIn, now, keyEnd)).toBe(end);
  });
  it.each([59, 604_801, 1.5])('refuses expiresIn %s with INVALID_REQUEST naming expiresIn', (expiresIn) => {
    expect(() => linkEnd(expiresIn, now, null)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', param: 'expiresIn' }));
  });
});
