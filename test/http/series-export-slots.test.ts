import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { gatedRates, tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not real ECB data): late March and early April 2024. */
const PUBLICATIONS: Publication[] = [
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45' } },
  { date: '2024-04-02', rates: { USD: '1.0764', JPY: '163.02' } },
  { date: '2024-04-03', rates: { USD: '1.0800', JPY: '163.50' } },
];

/** 2024-04-04 14:00 Berlin: the newest publication held is 2024-04-03. */
const CLOCK = () => new Date('2024-04-04T12:00:00Z');
const SECRET = randomBytes(32).toString('base64');
const LINKS = '/v1/currency/rates/series/links';

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

/** A call that would wait at a closed gate without the bound: a few seconds decide that it was refused instead. */
async function refusedSoon<T>(call: Promise<T>, open: () => void): Promise<T> {
  const answer = await Promise.race([call, new Promise<undefined>((resolve) => setTimeout(resolve, 5000))]);
  if (answer === undefined) open();
  expect(answer).toBeDefined();
  return answer!;
}

describe('signed links cannot take the exports or the requests of the key that made them', () => {
  let t: TestApp;
  let key: string;
  const rates = gatedRates(PUBLICATIONS);
  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_SECRET_KEY: SECRET, KEY_RATE_LIMIT: '5', EXPORTS_IN_FLIGHT: '2' }, { rates, clock: CLOCK });
    key = await t.createKey('developer');
  });
  afterAll(() => {
    rates.open();
    return t.close();
  });
  const link = async (start: string): Promise<string> => {
    const made = await t.call('POST', LINKS, { key, body: { start, end: '2024-03-31', symbols: ['USD'] } });
    expect(made.status, made.text).toBe(200);
    return made.body.data.url;
  };

  it("two link fetches in flight take the links' slots: a third is refused, the owner still exports", async () => {
    const urls = [await link('2024-03-01'), await link('2024-03-02'), await link('2024-03-03')];
    rates.close();
    const held = [t.call('GET', urls[0]!), t.call('GET', urls[1]!)];
    await until(() => rates.waiting() === 2);
    const third = await refusedSoon(t.call('GET', urls[2]!), () => rates.open());
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(third.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
    expect(third.body.error.message).toMatch(/for the signed links of a key/);
    const owner = t.call('GET', '/v1/currency/rates/series?start=2024-03-01&end=2024-03-31', { key, headers: { accept: 'text/csv' } });
    await until(() => rates.waiting() === 3);
    rates.open();
    expect((await Promise.all([...held, owner])).map((res) => res.status)).toEqual([200, 200, 200]);
  });

  it("link fetches spend a budget of their own: a loop fetching a link leaves the owner's convert calls alone", async () => {
    const url = await link('2024-03-04');
    // The owner's window of making links (and of the test before) ends first.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    let fetching = true;
    const linkStatuses: number[] = [];
    const loop = (async () => {
      while (fetching) linkStatuses.push((await t.call('GET', url)).status);
    })();
    // Three convert calls a second at most, within the key's 5: each is answered however the link is fetched meanwhile.
    const converts: number[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      converts.push((await t.call('GET', '/v1/convert?value=1&from=meter&to=foot', { key })).status);
    }
    fetching = false;
    await loop;
    expect(linkStatuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(converts).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('an instance has at most EXPORTS_PER_INSTANCE exports in flight, and EXPORT_MEMORY_MB of their estimates', () => {
  /** An app whose reads wait at a gate (reads are cached past the reader, so each test has its own), and exports of ranges no other call asked for. */
  const gatedApp = async (env: Record<string, string>) => {
    const rates = gatedRates(PUBLICATIONS);
    const t = await createTestApp({ KEY_RATE_LIMIT: '1000', ...env }, { rates, clock: CLOCK });
    let day = 0;
    const series = async (key: string, encoding = 'identity') =>
      t.call('GET', `/v1/currency/rates/series?start=2024-03-${String(++day).padStart(2, '0')}&end=2024-03-31`, {
        key,
        headers: { accept: 'text/csv', 'accept-encoding': encoding },
      });
    const close = () => {
      rates.open();
      return t.close();
    };
    return { t, rates, series, close };
  };

  it("refuses a third key's export while two keys export: 503 SERVICE_UNAVAILABLE with Retry-After, in the contract's shape", async () => {
    const { t, rates, series, close } = await gatedApp({ EXPORTS_PER_INSTANCE: '2' });
    try {
      const keys = [await t.createKey('developer'), await t.createKey('developer'), await t.createKey('developer')];
      rates.close();
      const held = [series(keys[0]!), series(keys[1]!)];
      await until(() => rates.waiting() === 2);
      const third = await refusedSoon(series(keys[2]!), () => rates.open());
      expect(third.status).toBe(503);
      expect(third.headers.get('retry-after')).toBe('1');
      expect(third.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
      rates.open();
      expect((await Promise.all(held)).map((res) => res.status)).toEqual([200, 200]);
      expect((await series(keys[2]!)).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('counts a Brotli stream at what its compressor holds: a second one past the memory bound is refused', async () => {
    const { t, rates, series, close } = await gatedApp({ EXPORT_MEMORY_MB: '6' });
    try {
      const keys = [await t.createKey('developer'), await t.createKey('developer')];
      rates.close();
      // 4 MiB for a Brotli stream: two are past 6 MiB; the first is always admitted.
      const held = series(keys[0]!, 'br');
      await until(() => rates.waiting() === 1);
      const second = await refusedSoon(series(keys[1]!, 'br'), () => rates.open());
      expect(second.status).toBe(503);
      // Half a MiB for a stream sent as it is: within the bound.
      const plain = series(keys[1]!);
      await until(() => rates.waiting() === 2);
      rates.open();
      expect([(await held).status, (await plain).status]).toEqual([200, 200]);
    } finally {
      await close();
    }
  });
});

describe("GraphQL rateSeries goes through the export's cost, cache and slots", () => {
  const RATE_SERIES = 'query($start: Date!, $end: Date) { rateSeries(start: $start, end: $end) { start end entries { period rates } } }';

  it("shares the key's slots with its REST exports: a third page in flight is refused with 429", async () => {
    const rates = gatedRates(PUBLICATIONS);
    const t = await createTestApp({ KEY_RATE_LIMIT: '1000', EXPORTS_IN_FLIGHT: '2' }, { rates, clock: CLOCK });
    try {
      const key = await t.createKey('developer');
      rates.close();
      const held = [
        t.call('GET', '/v1/currency/rates/series?start=2024-03-01&end=2024-03-31', { key, headers: { accept: 'text/csv' } }),
        t.graphql(RATE_SERIES, { start: '2024-03-02', end: '2024-03-31' }, key),
      ];
      await until(() => rates.waiting() === 2);
      const third = await refusedSoon(t.graphql(RATE_SERIES, { start: '2024-03-03', end: '2024-03-31' }, key), () => rates.open());
      expect(third.body.data).toEqual({ rateSeries: null });
      expect(third.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', status: 429 });
      rates.open();
      const [rest, graphql] = await Promise.all(held);
      expect(rest!.status).toBe(200);
      expect((graphql as { body: any }).body.data.rateSeries.entries).toHaveLength(2);
    } finally {
      rates.open();
      await t.close();
    }
  });

  it('a computed page costs one request per 10,000 rates; a complete page is then served from the cache, reading nothing', async () => {
    const codes = Array.from(
      { length: 40 },
      (_, i) => `X${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`,
    );
    const rates = tableRates(manyPublications(300, codes));
    const t = await createTestApp({ KEY_RATE_LIMIT: '10' }, { rates, clock: CLOCK });
    try {
      const key = await t.createKey('developer');
      // 300 publications × 40 currencies: 12,000 rates, two requests.
      const first = await t.postGraphQL(RATE_SERIES, { key, variables: { start: '2023-01-01', end: '2023-12-31' } });
      expect(first.body.errors).toBeUndefined();
      expect(first.headers.get('ratelimit')).toMatch(/;r=8;/);
      expect(first.body.extensions.cost.requests).toBe(2);
      const reads = rates.reads.length;
      const again = await t.postGraphQL(RATE_SERIES, { key, variables: { start: '2023-01-01', end: '2023-12-31' } });
      expect(again.body.data).toEqual(first.body.data);
      expect(rates.reads.length).toBe(reads);
      expect(again.headers.get('ratelimit')).toMatch(/;r=7;/);
      expect(again.body.extensions.cost.requests).toBe(1);
      // Past the key's rate limit, a page that costs two is refused before any rate is read.
      const many = await Promise.all(
        Array.from({ length: 6 }, (_, i) => t.graphql(RATE_SERIES, { start: '2023-01-01', end: `2023-12-${String(20 + i)}` }, key)),
      );
      expect(many.some((res) => res.body.errors?.[0]?.extensions?.code === 'RATE_LIMIT_EXCEEDED')).toBe(true);
    } finally {
      await t.close();
    }
  });
});

/** Made-up weekday publications from 2023-01-02 (not real ECB data), each quoting `codes.length` currencies. */
function manyPublications(count: number, codes: readonly string[]): Publication[] {
  const out: Publication[] = [];
  for (let day = new Date('2023-01-02T00:00:00Z'); out.length < count; day = new Date(day.getTime() + 86_400_000)) {
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    const i = out.length;
    out.push({
      date: day.toISOString().slice(0, 10),
      rates: Object.fromEntries(codes.map((code, j) => [code, (1 + j + (i % 97) / 1000).toFixed(4)])),
    });
  }
  return out;
}
