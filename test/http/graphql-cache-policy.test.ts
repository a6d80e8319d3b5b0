import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { graphQLCacheControl, type CacheFacts } from '../../src/http/graphql/graphql-cache-policy';
import { cacheableAnswer, withoutRequestCounters } from '../../src/http/graphql/graphql-get-cache';
import { mergeVary } from '../../src/http/answer/vary';

const FACTS: CacheFacts = { latestMaxAge: 1800, newestPublication: '2024-04-02', keyed: false };
const policy = (document: string, variables: Record<string, unknown> = {}, facts: Partial<CacheFacts> = {}, operationName?: string) =>
  graphQLCacheControl(parse(document), operationName, variables, { ...FACTS, ...facts });

describe('graphQLCacheControl: the REST route rule of each root field, the strictest winning', () => {
  it.each([
    ['the catalogue', '{ categories { id } units { id } }', {}, {}, 'public, max-age=3600'],
    ['one unit and one category', '{ unit(id: "ft") { id } category(id: "length") { id } }', {}, {}, 'public, max-age=3600'],
    ['__typename alone', '{ __typename }', {}, {}, 'public, max-age=3600'],
    ['introspection', '{ __schema { queryType { name } } }', {}, {}, 'public, max-age=3600'],
    ['the latest rates', '{ latestRates { date } }', {}, {}, 'public, max-age=1800'],
    ['the registry', '{ currencies { code } currency(code: "USD") { code } }', {}, {}, 'public, max-age=1800'],
    ['the catalogue with the latest rates: the shorter', '{ units { id } latestRates { date } }', {}, {}, 'public, max-age=1800'],
    ['a public document with a key', '{ units { id } }', {}, { keyed: true }, 'private, max-age=3600'],
    ['rates of a settled day (literal)', '{ rates(date: "2024-03-28") { date } }', {}, {}, 'private, max-age=86400'],
    [
      'rates of a settled day (variable)',
      'query R($d: Date) { rates(date: $d) { date } }',
      { d: '2024-03-27' },
      {},
      'private, max-age=86400',
    ],
    ['rates of the newest day', '{ rates(date: "2024-04-02") { date } }', {}, {}, 'private, max-age=1800'],
    ['rates without a day', '{ rates { date } }', {}, {}, 'private, max-age=1800'],
    ['rates while none are held', '{ rates(date: "2024-03-28") { date } }', {}, { newestPublication: null }, 'private, max-age=1800'],
    [
      'a series ending on a settled day',
      '{ rateSeries(start: "2024-01-01", end: "2024-03-01") { complete } }',
      {},
      {},
      'private, max-age=86400',
    ],
    ['a series without an end', '{ rateSeries(start: "2024-01-01") { complete } }', {}, {}, 'private, max-age=1800'],
    ['settled rates with the catalogue', '{ units { id } rates(date: "2024-03-28") { date } }', {}, {}, 'private, max-age=3600'],
    ['a conversion', '{ convert(value: "1", from: "ft", to: "m") { category } }', {}, {}, 'no-store'],
    ['a conversion beside the catalogue', '{ units { id } convert(value: "1", from: "ft", to: "m") { category } }', {}, {}, 'no-store'],
    ['the usage of a key', '{ usage { plan } }', {}, {}, 'no-store'],
    ['health', '{ health { status } }', {}, {}, 'no-store'],
    ['a POST-only field', '{ convertPost(value: "1", from: "ft", to: "m") { category } }', {}, {}, 'no-store'],
    ['a field through a fragment', 'query { ...F } fragment F on Query { usage { plan } }', {}, {}, 'no-store'],
    ['a field through an inline fragment', '{ ... on Query { latestRates { date } } }', {}, {}, 'public, max-age=1800'],
    ['a skipped field still counts', '{ units { id } health @skip(if: true) { status } }', {}, {}, 'no-store'],
    ['a subscription or mutation', 'mutation { x }', {}, {}, 'no-store'],
  ])('%s', (_, document, variables, facts, expected) => {
    expect(policy(document, variables, facts)).toBe(expected);
  });

  it('reads the operation named, of several', () => {
    const document = 'query A { units { id } } query B { usage { plan } }';
    expect(policy(document, {}, {}, 'A')).toBe('public, max-age=3600');
    expect(policy(document, {}, {}, 'B')).toBe('no-store');
    expect(policy(document)).toBe('no-store');
  });

  it('follows a fragment that spreads itself only once', () => {
    expect(policy('query { ...F } fragment F on Query { units { id } ...F }')).toBe('public, max-age=3600');
  });
});

describe('cacheableAnswer: the validator of the finished body', () => {
  it('gives a strong ETag of the exact bytes, and 304 when If-None-Match holds it (weakly compared)', () => {
    const first = cacheableAnswer('{"data":{}}', 'public, max-age=60', null);
    expect(first.status).toBe(200);
    expect(first.headers).toEqual({
      'cache-control': 'public, max-age=60',
      etag: expect.stringMatching(/^"[\w-]{32}"$/),
      vary: 'Accept, Accept-Language, Authorization',
    });
    expect(cacheableAnswer('{"data":{}}', 'public, max-age=60', first.headers.etag!).status).toBe(304);
    expect(cacheableAnswer('{"data":{}}', 'public, max-age=60', `"x", W/${first.headers.etag!}`).status).toBe(304);
    expect(cacheableAnswer('{"data":{} }', 'public, max-age=60', first.headers.etag!).status).toBe(200);
  });

  it('merges Vary without repeating a name', () => {
    expect(mergeVary('Accept-Language, accept', ['Accept', 'Authorization'])).toBe('Accept-Language, accept, Authorization');
    expect(mergeVary(null, ['Accept'])).toBe('Accept');
  });

  it("leaves the request's counters out of a cacheable body, and the rest of extensions in", () => {
    const result = {
      data: { a: 1 },
      extensions: {
        cost: { requestedConversions: 0, chargedConversions: 0 },
        rateLimit: { remaining: 5 },
        quota: { remaining: 3 },
        languages: [],
      },
    };
    expect(withoutRequestCounters(result)).toEqual({
      data: { a: 1 },
      extensions: { cost: { requestedConversions: 0, chargedConversions: 0 }, languages: [] },
    });
  });
});
