/**
 * Every source at once, on the publishers' real recorded responses (../shared/feeds and the ECB
 * history in ../shared/ecb, read in place, never copied): the registry, the listing of sources and
 * one conversion per kind of figure. Each expected figure is read from the file by this test with a
 * regular expression, never written here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDecimal } from '../../src/domain/decimal';
import { parseEcbFile } from '../../src/domain/ecb';
import { Rational } from '../../src/domain/rational';
import { SourceHistory } from '../../src/domain/sources/history';
import { parseFeed } from '../../src/domain/sources/parsers';
import type { SourceId } from '../../src/domain/sources/types';
import { servedSources } from '../../src/services/currency/held-sources';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

const SHARED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../shared');
const FEEDS = path.join(SHARED, 'feeds');
const feedText = (dir: string, prefix: string) => {
  const file = readdirSync(path.join(FEEDS, dir)).find((f) => f.startsWith(prefix))!;
  return readFileSync(path.join(FEEDS, dir, file), 'latin1');
};
const match = (text: string, pattern: RegExp): string[] => {
  const found = pattern.exec(text);
  if (!found) throw new Error(`not in the file: ${pattern}`);
  return found.slice(1);
};

function loadSources(): SourceHistory {
  let history = SourceHistory.EMPTY;
  for (const dir of readdirSync(FEEDS).filter((d) => !d.includes('.'))) {
    for (const file of readdirSync(path.join(FEEDS, dir))) {
      history = history.merge(parseFeed(dir as Exclude<SourceId, 'ecb'>, readFileSync(path.join(FEEDS, dir, file))).publications);
    }
  }
  return history;
}

let app: TestApp;
let key: string;

beforeAll(async () => {
  const ecb = parseEcbFile(readFileSync(path.join(SHARED, 'ecb/eurofxref-hist.csv')));
  const history = loadSources();
  app = await createTestApp(
    {},
    {
      rates: tableRates(ecb),
      sources: { history: () => history, enabled: () => servedSources('all') },
      clock: () => new Date('2026-04-27T12:00:00Z'),
    },
  );
  key = await app.createKey('developer');
}, 60_000);
afterAll(() => app.close());

const convert = (body: Record<string, string>) => app.call('POST', '/v1/currency/convert', { key, body });

describe('the registry and the sources, all loaded', () => {
  it('lists at least 150 currencies, each quoted one with its sources', async () => {
    const { status, body } = await app.call('GET', '/v1/currencies', { key });
    expect(status).toBe(200);
    const entries = body.data as { code: string; sources: { source: string }[]; successor: unknown }[];
    const quoted = entries.filter((e) => e.sources.length > 0);
    expect(quoted.length).toBeGreaterThanOrEqual(150);
    expect(entries.filter((e) => e.sources.length === 0).every((e) => e.successor !== null)).toBe(true);
    expect(entries.find((e) => e.code === 'USD')!.sources.map((s) => s.source)).toEqual([
      'ecb',
      'boc',
      'nb',
      'cnb',
      'nbp',
      'boi',
      'nbu',
      'cbr',
      'imf',
    ]);
  });

  it('lists the nine sources, each with its last publication', async () => {
    const { status, body } = await app.call('GET', '/v1/sources');
    expect(status).toBe(200);
    const sources = body.data as { id: string; lastPublication: string | null; terms: string }[];
    expect(sources.map((s) => s.id)).toEqual(['ecb', 'boc', 'nb', 'cnb', 'nbp', 'boi', 'nbu', 'cbr', 'imf']);
    for (const source of sources) {
      expect(source.lastPublication).toMatch(/^2026-0[34]-\d\d$/);
      expect(source.terms).toMatch(/^https:\/\//);
    }
  });
});

describe('one conversion per kind of figure, each digit from the file', () => {
  it('CNB: 100 yen cost the published koruna', async () => {
    const [rate] = match(feedText('cnb', ''), /"currencyCode":"JPY","amount":100,"validFor":"2026-03-02","rate":([\d.]+)/);
    const { body } = await convert({ value: '100', from: 'JPY', to: 'CZK', date: '2026-03-02', source: 'cnb' });
    expect(body.data.result.value).toBe(formatDecimal(Rational.parse(rate!)));
    expect(body.data.rate.figures[0]).toMatchObject({ currency: 'JPY', units: '100', value: rate });
  });

  it('Bank of Russia: a decimal comma and a Nominal of 10', async () => {
    const [value] = match(
      feedText('cbr', 'xml-daily'),
      /<CharCode>HKD<\/CharCode><Nominal>10<\/Nominal><Name>[^<]*<\/Name><Value>([\d,]+)<\/Value>/,
    );
    const { body } = await convert({ value: '10', from: 'HKD', to: 'RUB', date: '2026-04-25', source: 'cbr' });
    expect(body.data.result.value).toBe(formatDecimal(Rational.parse(value!.replace(',', '.'))));
    expect(body.data.rate.figures[0]).toMatchObject({ currency: 'HKD', units: '10', value: value!.replace(',', '.') });
  });

  it('IMF: a row marked (1) is US dollars per unit', async () => {
    const [value] = match(feedText('imf', 'rms-mth-rep'), /\nU\.K\. pound\(1\)\t([\d.]+)\t/);
    const { body } = await convert({ value: '1', from: 'GBP', to: 'USD', date: '2026-03-02', source: 'imf' });
    expect(body.data.result.value).toBe(formatDecimal(Rational.parse(value!)));
    expect(body.data.rate.figures[0]).toMatchObject({ currency: 'GBP', direction: 'base-per-units', table: 'representative' });
  });

  it('NBP table B on a Friday: that week’s Wednesday table', async () => {
    const [mid] = match(feedText('nbp', 'table-b'), /"code":"KES","mid":([\d.]+)/);
    const { body } = await convert({ value: '1', from: 'KES', to: 'PLN', date: '2026-03-06' });
    expect(body.data.rate.source).toBe('nbp');
    expect(body.data.result.value).toBe(formatDecimal(Rational.parse(mid!)));
    expect(body.data.rate.resolved).toMatchObject({ requested: '2026-03-06', publication: '2026-03-04', reason: 'weekly-table' });
  });

  it('a pair no single source quotes, through two: NBP for the shilling, the NBU for gold', async () => {
    const [kes] = match(feedText('nbp', 'table-b'), /"code":"KES","mid":([\d.]+)/);
    const [usdPln] = match(feedText('nbp', 'table-a'), /"effectiveDate":"2026-03-04".*?"code":"USD","mid":([\d.]+)/s);
    const nbu = feedText('nbu', '');
    const [usdUah] = match(nbu, /"exchangedate":"04\.03\.2026","r030":840,"cc":"USD","txt":"[^"]*","enname":"[^"]*","rate":([\d.]+)/);
    const [xauUah] = match(nbu, /"exchangedate":"04\.03\.2026","r030":959,"cc":"XAU","txt":"[^"]*","enname":"[^"]*","rate":([\d.]+)/);
    const { status, body } = await convert({ value: '1000000', from: 'KES', to: 'XAU', date: '2026-03-04' });
    expect(status).toBe(200);
    expect(body.data.rate.source).toBe('nbp; nbu');
    expect(body.data.rate.legs.map((l: { source: string; from: string; to: string }) => `${l.source} ${l.from}→${l.to}`)).toEqual([
      'nbp KES→USD',
      'nbu USD→XAU',
    ]);
    const exact = Rational.parse('1000000')
      .mul(Rational.parse(kes!).div(Rational.parse(usdPln!)))
      .mul(Rational.parse(usdUah!).div(Rational.parse(xauUah!)));
    expect(body.data.result.value).toBe(formatDecimal(exact));
  });

  it('the ECB still answers what it quotes, exactly as before', async () => {
    const { body } = await convert({ value: '1', from: 'EUR', to: 'USD', date: '2026-03-04' });
    expect(body.data.rate.source).toBe('ecb');
    expect(body.data.rate.figures).toBeUndefined();
  });
});
