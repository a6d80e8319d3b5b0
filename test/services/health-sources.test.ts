import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { tempSources, tiny, type TempSources } from '../data/sources/helpers';

/** Wednesday 2026-04-15, 12:00 UTC: the Bank of Canada's Tuesday publication is in, Norges Bank's is overdue. */
const clock = () => new Date('2026-04-15T12:00:00Z');

let t: TempSources;
let app: TestApp;
beforeAll(async () => {
  t = tempSources({ RATE_SOURCES: 'ecb,boc,nb' });
  const sources = t.service({ clock });
  await sources.importFile('boc', t.file('boc.txt', tiny('boc', '2026-04-14 - USD=1.3716')));
  await sources.importFile('nb', t.file('nb.txt', tiny('nb', '2026-04-13 - USD=10.5')));
  await sources.start();
  app = await createTestApp({}, { sources, clock });
});
afterAll(async () => {
  await app?.close();
  await t?.cleanup();
});

describe('health of the sources besides the ECB', () => {
  it("GET /v1/health lists each enabled source's freshness beside the ECB's unchanged fields", async () => {
    const { status, body } = await app.call('GET', '/v1/health');
    expect(status).toBe(200);
    expect(Object.keys(body.data.rates)).toEqual(['date', 'fetchedAt', 'stale', 'missingPublications', 'lastError']);
    expect(body.data.sources).toEqual([
      {
        source: 'boc',
        lastPublication: '2026-04-14',
        fetchedAt: '2026-04-15T12:00:00.000Z',
        expectedNext: '2026-04-15T20:30:00.000Z',
        stale: false,
        // The tests' fetch has no network: the last fetch failed, what the database held is served.
        lastError: expect.stringMatching(/^GET https:\/\/www\.bankofcanada\.ca\/valet\/.*\(ENETUNREACH\)$/),
      },
      {
        source: 'nb',
        lastPublication: '2026-04-13',
        fetchedAt: '2026-04-15T12:00:00.000Z',
        expectedNext: '2026-04-14T14:00:00.000Z',
        stale: true,
        lastError: expect.any(String),
      },
    ]);
  });
});
