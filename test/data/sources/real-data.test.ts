/**
 * The store and the fetch loop on the publishers' real recorded responses (../shared/feeds, read in
 * place, never copied), through the real parsers: every file imports, a second import changes
 * nothing, a restart serves the same history, and a fetch served those bodies loads them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFeed } from '../../../src/domain/sources/parsers';
import type { FeedSourceId } from '../../../src/services/currency/source-rates';
import { sharedDataPresent } from '../../helpers/shared-data';
import { startFakePublishers, tempSources, type FakePublishers, type TempSources } from './helpers';

const FEEDS = path.resolve(import.meta.dirname, '../../../../shared/feeds');

const FILES: [FeedSourceId, string][] = [
  ['boc', 'boc/fx-rates-daily-from-2026-03-12.json'],
  ['nb', 'nb/exr-b-nok-sp-2026-03-16-to-2026-03-24.csv'],
  ['cnb', 'cnb/daily-year-2026-to-2026-04-02.json'],
  ['nbp', 'nbp/table-a-2026-03-01-to-2026-03-05.json'],
  ['nbp', 'nbp/table-b-2026-03-01-to-2026-03-05.json'],
  ['cbr', 'cbr/xml-daily-2026-04-25.xml'],
  ['boi', 'boi/exr-of00-2026-03-01-to-2026-03-20.csv'],
  ['imf', 'imf/rms-mth-rep-2026-03.tsv'],
  ['imf', 'imf/rms-mth-sdrcv-2026-03.tsv'],
  ['nbu', 'nbu/exchange-site-2026-03-01-to-2026-03-16.json'],
];

let t: TempSources;
beforeEach(() => {
  t = tempSources();
});
afterEach(() => t.cleanup());

describe.skipIf(!sharedDataPresent(FEEDS))('the recorded publisher responses in the store', () => {
  it.each(FILES)('%s %s: imported whole, then again without a change, then served after a restart', async (source, file) => {
    const full = path.join(FEEDS, file);
    const first = await t.service({ parse: parseFeed }).importFile(source, full);
    expect(first.publications).toBeGreaterThan(0);
    expect(first.added).toBe(first.publications);
    expect(first.replaced).toBe(0);
    const again = await t.service({ parse: parseFeed }).importFile(source, full);
    expect(again).toMatchObject({ added: 0, replaced: 0, newest: first.newest });
    const restarted = t.service({ parse: parseFeed });
    await restarted.start();
    expect(restarted.history().latest(source)).toBe(first.newest);
    expect(restarted.history().size).toBe(first.publications);
  });
});

describe.skipIf(!sharedDataPresent(FEEDS))('a fetch served the recorded responses', () => {
  let fake: FakePublishers;
  beforeEach(async () => {
    fake = await startFakePublishers();
  });
  afterEach(() => fake.close());

  it('NBP: tables A and B of one fetch are both loaded through the real parser', async () => {
    fake.route('nbp', (req, res) => {
      const table = /\/tables\/([AB])\//.exec(req.url ?? '')?.[1]?.toLowerCase();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(readFileSync(path.join(FEEDS, `nbp/table-${table}-2026-03-01-to-2026-03-05.json`)));
    });
    const env = tempSources({ RATE_SOURCES: 'nbp', NBP_BASE_URL: fake.url('nbp') });
    try {
      const service = env.service({ parse: parseFeed, fetch: globalThis.fetch, clock: () => new Date('2026-03-06T12:00:00Z') });
      await service.start();
      await expect.poll(() => service.history().latestOfTable('nbp', 'B'), { timeout: 5_000 }).toBe('2026-03-04');
      expect(service.history().latestOfTable('nbp', 'A')).toBe('2026-03-05');
      expect(service.status('nbp')).toMatchObject({ lastPublication: '2026-03-05', lastError: null });
    } finally {
      await env.cleanup();
    }
  });
});
