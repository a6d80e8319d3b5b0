/**
 * Every currency any source quotes has a name in each supported language, over REST and GraphQL,
 * read from the publishers' recorded responses (../shared/feeds, read in place). Where ICU has no
 * name in a language, the documented fallback answers: the English name, `localized: false`,
 * `language: "en"` (docs/names.md); those codes are pinned here, so a new gap fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPPORTED_LANGUAGES } from '../../src/domain/language/supported';
import { SourceHistory } from '../../src/domain/sources/history';
import { parseFeed } from '../../src/domain/sources/parsers';
import type { SourceId } from '../../src/domain/sources/types';
import { servedSources } from '../../src/services/currency/held-sources';
import { createTestApp, type TestApp } from '../helpers/app';
import { sharedDataPresent } from '../helpers/shared-data';
import { tableRates } from '../helpers/table-rates';

const FEEDS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared/feeds');
const PRESENT = sharedDataPresent(FEEDS);

/** The codes ICU names in English only, per language: they answer with the English name. */
const ENGLISH_ONLY: Partial<Record<string, readonly string[]>> = {
  el: ['XAG', 'XAU', 'XPD', 'XPT'],
  hi: ['SVC', 'XAG', 'XAU', 'XDR', 'XPD', 'XPT'],
};

interface Entry {
  code: string;
  name: string;
  localName: { text: string; language: string; localized: boolean };
  sources: { source: string }[];
}

let app: TestApp;
let quoted: Set<string>;

beforeAll(async () => {
  if (!PRESENT) return;
  let history = SourceHistory.EMPTY;
  for (const dir of readdirSync(FEEDS).filter((d) => !d.includes('.')))
    for (const file of readdirSync(path.join(FEEDS, dir)))
      history = history.merge(parseFeed(dir as Exclude<SourceId, 'ecb'>, readFileSync(path.join(FEEDS, dir, file))).publications);
  // A made-up ECB day: the registry's other entries are not what this test reads.
  const ecb = [{ date: '2026-03-02', rates: { USD: '1.1000' } }];
  // 62 public requests, past the default per-IP limit of 60 a minute.
  app = await createTestApp(
    { PUBLIC_RATE_LIMIT: '1000' },
    { rates: tableRates(ecb), sources: { history: () => history, enabled: () => servedSources('all') } },
  );
  quoted = new Set();
  for (const dir of readdirSync(FEEDS).filter((d) => !d.includes('.')))
    for (const code of history.quoted(dir as SourceId).keys()) quoted.add(code);
}, 60_000);
afterAll(() => app?.close());

/** The entries of currencies some source quotes, and what the language answered for each that is not localized. */
function check(language: string, entries: readonly Entry[]): void {
  const ofSources = entries.filter((entry) => quoted.has(entry.code));
  expect(new Set(ofSources.map((entry) => entry.code))).toEqual(quoted);
  const english = new Set(ENGLISH_ONLY[language] ?? []);
  for (const entry of ofSources) {
    expect(entry.name, entry.code).not.toBe(entry.code);
    if (entry.localName.localized) {
      expect(entry.localName, entry.code).toMatchObject({ language });
      expect(entry.localName.text, entry.code).not.toBe(entry.code);
    } else {
      expect([language, entry.code, english.has(entry.code)]).toEqual([language, entry.code, true]);
      expect(entry.localName).toEqual({ text: entry.name, language: 'en', localized: false });
    }
  }
}

describe.skipIf(!PRESENT)('names in every language for every currency a source quotes', () => {
  it('quotes well over 150 codes (the set this test reads)', () => {
    expect(quoted.size).toBeGreaterThanOrEqual(150);
  });

  it.each(SUPPORTED_LANGUAGES)('%s: GET /v1/currencies names each, or falls back to its English name as documented', async (language) => {
    const { status, body, headers } = await app.call('GET', `/v1/currencies?lang=${language}`);
    expect(status).toBe(200);
    expect(headers.get('content-language')).toBe(language);
    check(language, body.data as Entry[]);
  });

  it.each(SUPPORTED_LANGUAGES)('%s: GraphQL currencies names each the same way', async (language) => {
    const query = 'query($lang: String) { currencies(lang: $lang) { code name localName { text language localized } sources { source } } }';
    const { body } = await app.graphql(query, { lang: language });
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    check(language, body.data.currencies as Entry[]);
  });
});
