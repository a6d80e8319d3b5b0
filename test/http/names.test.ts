import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { rawRequest } from '../helpers/http';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

const JA_CHF = new Intl.DisplayNames('ja', { type: 'currency' }).of('CHF');

describe.each([
  ['direct', {}],
  ['reference', { REST_EXECUTION: 'sofa' }],
])('names in the caller’s language (%s executions)', (_, env) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(env, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
  });
  afterAll(() => t.close());

  /** POST /graphql through the node:http front and its executor. */
  const postGraphQL = async (body: unknown, headers: Record<string, string> = {}) => {
    const answer = await rawRequest(t.origin, 'POST', '/graphql', { 'content-type': 'application/json', ...headers }, JSON.stringify(body));
    return { status: answer.status, headers: answer.headers, body: JSON.parse(answer.text) };
  };

  const get = (url: string, acceptLanguage?: string) =>
    t.call('GET', url, acceptLanguage === undefined ? {} : { headers: { 'accept-language': acceptLanguage } });

  describe('GET /v1/currencies/:code', () => {
    it.each([
      ['?lang=de', undefined, 'Schweizer Franken', 'de'],
      ['?lang=ja', undefined, JA_CHF, 'ja'],
      ['', 'fr-CH, de;q=0.8', 'franc suisse', 'fr'],
      ['?lang=de', 'fr', 'Schweizer Franken', 'de'],
      ['?lang=xx-invalid', 'de', 'Swiss Franc', 'en'],
      ['', undefined, 'Swiss Franc', 'en'],
    ])('%s with Accept-Language %j is %j in %s', async (query, acceptLanguage, text, language) => {
      const res = await get(`/v1/currencies/CHF${query}`, acceptLanguage);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ code: 'CHF', name: 'Swiss Franc', localName: { text, language, localized: true } });
      expect(res.headers.get('content-language')).toBe(language);
      expect(res.headers.get('vary')).toMatch(/Accept-Language/);
    });

    it('gives each language its own ETag, and a 304 only to the same language', async () => {
      const de = await get('/v1/currencies/CHF?lang=de');
      const fr = await get('/v1/currencies/CHF?lang=fr');
      expect(de.headers.get('etag')).not.toBe(fr.headers.get('etag'));
      const again = await t.call('GET', '/v1/currencies/CHF?lang=de', { headers: { 'if-none-match': de.headers.get('etag')! } });
      expect(again.status).toBe(304);
      expect(again.headers.get('vary')).toMatch(/Accept-Language/);
      const other = await t.call('GET', '/v1/currencies/CHF?lang=fr', { headers: { 'if-none-match': de.headers.get('etag')! } });
      expect(other.status).toBe(200);
    });

    it('finds currencies by their name in the language asked for', async () => {
      const res = await get(`/v1/currencies?name=${encodeURIComponent('Schweizer Franken')}&lang=de`);
      expect(res.body.data.map((c: { code: string }) => c.code)).toEqual(['CHF']);
      expect(
        (await get(`/v1/currencies?name=${encodeURIComponent('schweizer franken')}`, 'de-AT')).body.data.map(
          (c: { code: string }) => c.code,
        ),
      ).toEqual(['CHF']);
      expect((await get(`/v1/currencies?name=${encodeURIComponent('Schweizer Franken')}&lang=fr`)).body.data).toEqual([]);
    });

    it('an error carries no Content-Language', async () => {
      const res = await get('/v1/currencies/XYZ?lang=de');
      expect(res.status).toBe(404);
      expect(res.headers.get('content-language')).toBeNull();
    });
  });

  describe('the units catalogue', () => {
    it('GET /v1/units/kilometer_per_hour?lang=de is CLDR’s “Kilometer pro Stunde”', async () => {
      const res = await get('/v1/units/kilometer_per_hour?lang=de');
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id: 'kilometer_per_hour',
        name: 'kilometer per hour',
        localName: { text: 'Kilometer pro Stunde', language: 'de', localized: true },
      });
      expect(res.headers.get('content-language')).toBe('de');
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    });

    it('finds a unit by its name in the language asked for', async () => {
      const res = await get(`/v1/units/${encodeURIComponent('Kilometer pro Stunde')}?lang=de`);
      expect(res.body.data.id).toBe('kilometer_per_hour');
      expect((await get(`/v1/units/${encodeURIComponent('Kilometer pro Stunde')}?lang=fr`)).status).toBe(404);
    });

    it('a unit CLDR does not have keeps its English name, said so', async () => {
      const res = await get('/v1/units/us_survey_foot?lang=de');
      expect(res.body.data.localName).toEqual({ text: 'US survey foot', language: 'en', localized: false });
    });

    it('a kept answer is kept per language: the same target with another Accept-Language gets its own names', async () => {
      for (let i = 0; i < 2; i += 1) {
        const de = await get('/v1/units/meter', 'de');
        const ja = await get('/v1/units/meter', 'ja');
        const none = await get('/v1/units/meter');
        expect([de.body.data.localName.text, ja.body.data.localName.text, none.body.data.localName.text]).toEqual([
          'Meter',
          'メートル',
          'meter',
        ]);
        expect([de.headers.get('content-language'), ja.headers.get('content-language'), none.headers.get('content-language')]).toEqual([
          'de',
          'ja',
          'en',
        ]);
        expect(de.headers.get('etag')).not.toBe(ja.headers.get('etag'));
      }
    });

    it('a category with its units names them in one language', async () => {
      const res = await get('/v1/categories/speed?lang=en-GB');
      expect(res.body.data.units.find((u: { id: string }) => u.id === 'meter_per_second').localName).toEqual({
        text: 'metre per second',
        language: 'en-GB',
        localized: true,
      });
    });
  });

  describe('conversions counted in a language', () => {
    it.each([
      ['value=1&from=meter&to=centimeter&lang=de', '1 Meter', '100 Zentimeter'],
      ['value=2&from=km&to=m&lang=de', '2 Kilometer', '2.000 Meter'],
      ['value=1&from=m&to=mm&lang=en-GB', '1 metre', '1,000 millimetres'],
      ['value=0.0254&from=m&to=in&lang=en-GB', '0.0254 metres', '1 inch'],
    ])('GET /v1/convert?%s: %j → %j', async (query, input, result) => {
      const key = await t.createKey('free');
      const res = await t.call('GET', `/v1/convert?${query}`, { key });
      expect(res.body.data.input.text).toBe(input);
      expect(res.body.data.result.text).toBe(result);
      expect(res.headers.get('content-language')).toBe(query.endsWith('de') ? 'de' : 'en-GB');
    });

    it('without lang a conversion is what it always was: no text, no Content-Language', async () => {
      const key = await t.createKey('free');
      const res = await t.call('GET', '/v1/convert?value=1&from=meter&to=us_survey_foot', { key, headers: { 'accept-language': 'de' } });
      expect(res.body.data).toEqual({
        input: { value: '1', unit: 'meter' },
        result: { value: expect.any(String), unit: 'us_survey_foot' },
        category: 'length',
      });
      expect(res.headers.get('content-language')).toBeNull();
      const named = await t.call('GET', '/v1/convert?value=1&from=meter&to=us_survey_foot&lang=de', { key });
      expect(named.body.data.input.text).toBe('1 Meter');
      expect(named.body.data.result).not.toHaveProperty('text');
    });
  });

  describe('GraphQL', () => {
    const DOCUMENT = `query ($lang: String) {
      unit(id: "kilometer_per_hour", lang: $lang) { id localName { text language localized } }
      currency(code: "CHF", lang: $lang) { code localName { text language } }
    }`;

    it('a document asks units and currencies in one language, and says which', async () => {
      const res = await postGraphQL({ query: DOCUMENT, variables: { lang: 'de-CH' } });
      expect(res.body.data).toEqual({
        unit: { id: 'kilometer_per_hour', localName: { text: 'Kilometer pro Stunde', language: 'de', localized: true } },
        currency: { code: 'CHF', localName: { text: 'Schweizer Franken', language: 'de' } },
      });
      expect(res.body.extensions.languages).toEqual([{ used: 'de', source: 'lang', asked: 'de-CH', exact: false }]);
      expect(res.headers.get('content-language')).toBe('de');
      expect(res.headers.get('vary')).toMatch(/Accept-Language/);
    });

    it('without lang, the Accept-Language header chooses for the whole document', async () => {
      const res = await postGraphQL({ query: DOCUMENT }, { 'accept-language': 'fr-CH, de;q=0.8' });
      expect(res.body.data.currency.localName).toEqual({ text: 'franc suisse', language: 'fr' });
      expect(res.body.extensions.languages).toEqual([{ used: 'fr', source: 'accept-language', asked: 'fr-CH', exact: false }]);
      expect(res.headers.get('content-language')).toBe('fr');
    });

    it('an unknown tag answers in English, said so; a document without names says no language', async () => {
      const res = await postGraphQL({ query: DOCUMENT, variables: { lang: 'xx-invalid' } });
      expect(res.body.data.currency.localName).toEqual({ text: 'Swiss Franc', language: 'en' });
      expect(res.body.extensions.languages).toEqual([{ used: 'en', source: 'lang', asked: 'xx-invalid', exact: false }]);
      const plain = await postGraphQL({ query: '{ health { status } }' });
      expect(plain.body.extensions.languages).toBeUndefined();
      expect(plain.headers.get('content-language')).toBeNull();
    });

    it('Yoga’s own adapter (a GET through the front) gives the same headers', async () => {
      const search = new URLSearchParams({ query: DOCUMENT, variables: JSON.stringify({ lang: 'ja' }) });
      const res = await t.fetch(`/graphql?${search}`, { headers: { accept: 'application/json' } });
      expect((await res.json()).data.currency.localName.text).toBe(JA_CHF);
      expect(res.headers.get('content-language')).toBe('ja');
      expect(res.headers.get('vary')).toMatch(/Accept-Language/);
    });
  });
});
