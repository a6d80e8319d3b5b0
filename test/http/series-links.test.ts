import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import { createTestApp, type TestApp } from '../helpers/app';
import { tableRates } from '../helpers/table-rates';

/** Made-up publications in the ECB's form (not real ECB data): March and early April 2024. */
const PUBLICATIONS: Publication[] = [
  { date: '2024-03-27', rates: { USD: '1.0830', JPY: '163.96', GBP: '0.8571' } },
  { date: '2024-03-28', rates: { USD: '1.0811', JPY: '163.45', GBP: '0.8551' } },
  { date: '2024-04-02', rates: { USD: '1.0764', JPY: '163.02', GBP: '0.8558' } },
  { date: '2024-04-03', rates: { USD: '1.0800', JPY: '163.50', GBP: '0.8560' } },
];

/** One secret for every instance of these tests (made up here, as an operator would with openssl rand). */
const SECRET = randomBytes(32).toString('base64');

/** The tests' clock, moved forward by the expiry tests: 2024-04-04 14:00 Berlin. */
let now = new Date('2024-04-04T12:00:00Z');
const clock = () => now;

/** Runs `check` with the clock moved `ms` forward, then moves it back. */
async function later(ms: number, check: () => Promise<void>): Promise<void> {
  const before = now;
  now = new Date(before.getTime() + ms);
  try {
    await check();
  } finally {
    now = before;
  }
}

/** Every log line the first instance writes, as text. */
let logText = '';
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logText += chunk.toString();
    done();
  },
});

const LINKS = '/v1/currency/rates/series/links';
const QUERY = 'start=2024-03-01&end=2024-03-31&symbols=USD,JPY';
const ASKED = { start: '2024-03-01', end: '2024-03-31', symbols: ['USD', 'JPY'] };

let t: TestApp;
let second: TestApp;
let key: string;
let keyId: string;
/** The SQLite file every instance of these tests shares. */
let databaseFile: string;

beforeAll(async () => {
  t = await createTestApp(
    { WEBHOOK_SECRET_KEY: SECRET },
    { rates: tableRates(PUBLICATIONS), clock, logger: pino({ level: 'debug' }, sink) },
  );
  if (t.config.database.kind !== 'sqlite') throw new TypeError('these tests share one SQLite file between two instances');
  databaseFile = t.config.database.file;
  // A second instance on the same database with the same secret, as a deployment of several runs.
  second = await createTestApp({ WEBHOOK_SECRET_KEY: SECRET, DATABASE_URL: databaseFile }, { rates: tableRates(PUBLICATIONS), clock });
  ({ key, keyId } = await t.createAccountKey('developer'));
});
afterAll(async () => {
  await second.close();
  await t.close();
});

/** A link made over REST with `key` (the developer key by default); fails the test unless it is made. */
async function makeLink(
  body: Record<string, unknown> = ASKED,
  withKey = key,
): Promise<{ url: string; expiresAt: string; format: string; keyId: string }> {
  const made = await t.call('POST', LINKS, { key: withKey, body });
  expect(made.status, made.text).toBe(200);
  return made.body.data;
}

/** The link fetched with no Authorization header, as a spreadsheet does. */
const fetchLink = (app: TestApp, url: string, headers: Record<string, string> = {}) => app.call('GET', url, { headers });

/** The link with one query parameter set to another value (or added). */
function withParam(url: string, name: string, value: string): string {
  const [path, query] = url.split('?');
  const params = new URLSearchParams(query);
  params.set(name, value);
  return `${path}?${params.toString()}`;
}

describe('a signed link made with a key opens the export without one', () => {
  it('answers exactly what the key gets: the same CSV bytes, ETag, Content-Disposition; and 304 on a match', async () => {
    const link = await makeLink();
    expect(link.url.startsWith(`${t.origin}/v1/currency/rates/series/signed?`), link.url).toBe(true);
    expect(link.url).not.toContain(key);
    expect(link).toMatchObject({ format: 'csv', keyId, expiresAt: '2024-04-05T12:00:00.000Z' });
    const keyed = await t.call('GET', `/v1/currency/rates/series?${QUERY}`, { key, headers: { accept: 'text/csv' } });
    const linked = await fetchLink(t, link.url);
    expect(linked.status).toBe(200);
    expect(linked.text).toBe(keyed.text);
    expect(linked.text).toBe('date,base,USD,JPY\r\n2024-03-27,EUR,1.0830,163.96\r\n2024-03-28,EUR,1.0811,163.45\r\n');
    for (const header of ['content-type', 'content-disposition', 'etag', 'cache-control'])
      expect(linked.headers.get(header), header).toBe(keyed.headers.get(header));
    const again = await fetchLink(t, link.url, { 'if-none-match': linked.headers.get('etag')! });
    expect(again.status).toBe(304);
  });

  it('fixes its media type whatever Accept says: an NDJSON link answers NDJSON to a JSON Accept', async () => {
    const link = await makeLink({ ...ASKED, format: 'ndjson' });
    const linked = await fetchLink(t, link.url, { accept: 'application/json' });
    expect(linked.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const keyed = await t.call('GET', `/v1/currency/rates/series?${QUERY}`, { key, headers: { accept: 'application/x-ndjson' } });
    expect(linked.text).toBe(keyed.text);
  });

  it("spends the rate limit of the key that made it, not the IP's public one", async () => {
    const linked = await fetchLink(t, (await makeLink()).url);
    expect(linked.headers.get('ratelimit-policy')).toBe(`"per-key";q=${t.config.keyRateLimit};w=1`);
  });

  it('is made through GraphQL too, and that link works the same', async () => {
    const { body } = await t.graphql(
      '{ rateSeriesLink(start: "2024-03-01", end: "2024-03-31", symbols: ["USD", "JPY"], expiresIn: 3600) { url expiresAt format keyId } }',
      {},
      key,
    );
    expect(body.data.rateSeriesLink).toMatchObject({ format: 'csv', keyId, expiresAt: '2024-04-04T13:00:00.000Z' });
    const linked = await fetchLink(t, body.data.rateSeriesLink.url);
    expect(linked.status).toBe(200);
    expect(linked.text.startsWith('date,base,USD,JPY\r\n')).toBe(true);
  });

  it('works on another instance configured with the same secret, and on no instance with another', async () => {
    const link = await makeLink();
    const there = await fetchLink(second, link.url);
    expect(there.status).toBe(200);
    expect(there.text).toBe((await fetchLink(t, link.url)).text);
    const other = await createTestApp(
      { WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'), DATABASE_URL: databaseFile },
      { rates: tableRates(PUBLICATIONS), clock },
    );
    try {
      const refused = await fetchLink(other, link.url);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('LINK_INVALID');
    } finally {
      await other.close();
    }
  });
});

describe('a link is refused once anything in it changes, or once it expires', () => {
  it.each([
    ['a later start', 'start', '2024-03-28'],
    ['another end', 'end', '2024-04-03'],
    ['another currency', 'symbols', 'USD,GBP'],
    ['another format', 'format', 'ndjson'],
    ['another key id', 'keyId', 'key_0000000000000000000000'],
    ['a later expiry', 'expires', String(Math.floor(now.getTime() / 1000) + 7 * 86_400)],
    ['an added parameter', 'base', 'USD'],
  ])("%s: 403 LINK_INVALID with the contract's error body", async (_, name, value) => {
    const refused = await fetchLink(t, withParam((await makeLink()).url, name, value));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'LINK_INVALID', status: 403, param: 'signature' });
    expect(refused.body.error.message).toMatch(/does not match its signature/);
  });

  it('a wrong signature, a truncated one, or none: 403 LINK_INVALID', async () => {
    const link = await makeLink();
    const signature = new URLSearchParams(link.url.split('?')[1]).get('signature')!;
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    for (const url of [
      withParam(link.url, 'signature', flipped),
      withParam(link.url, 'signature', signature.slice(0, 20)),
      link.url.replace(/&signature=[^&]*/, ''),
    ]) {
      const refused = await fetchLink(t, url);
      expect(refused.status, url).toBe(403);
      expect(refused.body.error.code).toBe('LINK_INVALID');
    }
  });

  it('the same values encoded another way still match (a client that writes %2C for a comma)', async () => {
    const link = await makeLink();
    const linked = await fetchLink(t, link.url.replace('USD%2CJPY', 'USD,JPY').replace('USD,JPY', 'USD%2cJPY'));
    expect(linked.status).toBe(200);
  });

  it('past its expiry: 403 LINK_EXPIRED naming when', async () => {
    const link = await makeLink({ ...ASKED, expiresIn: 60 });
    expect((await fetchLink(t, link.url)).status).toBe(200);
    await later(60_000, async () => {
      const refused = await fetchLink(t, link.url);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'LINK_EXPIRED',
        param: 'expires',
        message: `The signed link expired at ${link.expiresAt}; make a new one with a current key.`,
      });
    });
  });

  it('refuses a lifetime outside 60 s to 7 days when made', async () => {
    for (const expiresIn of [59, 7 * 86_400 + 1]) {
      const refused = await t.call('POST', LINKS, { key, body: { ...ASKED, expiresIn } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'expiresIn' });
    }
  });
});

describe('a link is only as good as the key that made it', () => {
  it('a revoked key ends its links at once, on every instance: 401 UNAUTHORIZED', async () => {
    const made = await t.createAccountKey('developer');
    const link = await makeLink(ASKED, made.key);
    expect((await fetchLink(second, link.url)).status).toBe(200);
    await t.store.revokeKey(made.keyId);
    for (const app of [t, second]) {
      const refused = await fetchLink(app, link.url);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('UNAUTHORIZED');
      expect(refused.body.error.message).toMatch(/this link was made with is unknown or has been revoked/);
    }
  });

  it('a key rotated out with a grace works until the grace ends, then KEY_EXPIRED', async () => {
    const made = await t.createAccountKey('developer');
    const link = await makeLink(ASKED, made.key);
    await t.store.rotateKey(made.keyId, new Date(now.getTime() + 3_600_000).toISOString());
    expect((await fetchLink(t, link.url)).status).toBe(200);
    await later(3_600_000, async () => {
      const refused = await fetchLink(second, link.url);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('KEY_EXPIRED');
    });
  });

  it('the plan rule applies: a free key makes none, and a link stops when its account leaves the Developer plan', async () => {
    const free = await t.call('POST', LINKS, { key: await t.createKey('free'), body: ASKED });
    expect(free.status).toBe(403);
    expect(free.body.error.code).toBe('PLAN_REQUIRED');
    const email = `links-${randomBytes(4).toString('hex')}@example.com`;
    const account = await t.store.createAccount({ email, plan: 'developer' });
    const created = await t.store.createKey(account.id, 'test');
    const link = await makeLink(ASKED, created.key);
    await t.store.setPlan(email, 'free');
    const refused = await fetchLink(t, link.url);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('PLAN_REQUIRED');
  });

  it('a link and a key together are refused (which key would pay is not guessed)', async () => {
    const refused = await t.call('GET', (await makeLink()).url, { key });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'signature' });
  });

  it("grants that export only: the link's parameters on another route are unknown parameters", async () => {
    const query = (await makeLink()).url.split('?')[1];
    const refused = await t.call('GET', `/v1/currency/rates?${query}`);
    expect(refused.status).toBe(401);
  });
});

describe('a link is fetched at a route of its own', () => {
  it('HEAD of a link: the headers of its GET, no body', async () => {
    const link = await makeLink();
    const [get, head] = [await fetchLink(t, link.url), await t.call('HEAD', link.url)];
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    for (const header of ['content-type', 'content-disposition', 'etag', 'cache-control', 'content-length'])
      expect(head.headers.get(header), header).toBe(get.headers.get(header));
  });

  it("the links' route without a link: 403 LINK_INVALID; with a key instead: 400, never the keyed export", async () => {
    for (const options of [{}, { key }]) {
      const refused = await t.call('GET', `/v1/currency/rates/series/signed?${QUERY}`, options);
      expect(refused.status).toBe('key' in options ? 400 : 403);
      expect(refused.body.error.code).toBe('key' in options ? 'INVALID_REQUEST' : 'LINK_INVALID');
    }
  });

  it("a link's query on the keyed export's path: 308 to the same query on the links' route, which opens it", async () => {
    const link = await makeLink();
    const query = link.url.split('?')[1]!;
    const moved = await t.call('GET', `/v1/currency/rates/series?${query}`);
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe(`/v1/currency/rates/series/signed?${query}`);
    const followed = await fetchLink(t, moved.headers.get('location')!);
    expect(followed.status).toBe(200);
    expect(followed.text).toBe((await fetchLink(t, link.url)).text);
  });
});

describe("a link's URL is absolute where its origin is known", () => {
  it('on a Host that is not the loopback interface, and no PUBLIC_ORIGIN: the path and query alone', async () => {
    const made = await t.call('POST', LINKS, { key, body: ASKED, headers: { host: 'rates.example' } });
    expect(made.body.data.url).toMatch(/^\/v1\/currency\/rates\/series\/signed\?/);
    const local = await t.call('POST', LINKS, { key, body: ASKED, headers: { host: 'localhost:8080' } });
    expect(local.body.data.url).toMatch(/^http:\/\/localhost:8080\/v1\/currency\/rates\/series\/signed\?/);
  });

  it('PUBLIC_ORIGIN: every link on it, whatever Host says; TRUST_PROXY without it: no Host is taken, even a loopback one', async () => {
    const shared = { WEBHOOK_SECRET_KEY: SECRET, DATABASE_URL: databaseFile };
    const configured = await createTestApp(
      { ...shared, PUBLIC_ORIGIN: 'https://rates.example' },
      { rates: tableRates(PUBLICATIONS), clock },
    );
    const proxied = await createTestApp({ ...shared, TRUST_PROXY: '1' }, { rates: tableRates(PUBLICATIONS), clock });
    try {
      const made = await configured.call('POST', LINKS, { key, body: ASKED, headers: { host: 'other.example' } });
      expect(made.body.data.url).toMatch(/^https:\/\/rates\.example\/v1\/currency\/rates\/series\/signed\?/);
      const graphql = await configured.graphql('{ rateSeriesLink(start: "2024-03-01", end: "2024-03-31") { url } }', {}, key);
      expect(graphql.body.data.rateSeriesLink.url).toMatch(/^https:\/\/rates\.example\/v1\/currency\/rates\/series\/signed\?/);
      const relative = await proxied.call('POST', LINKS, { key, body: ASKED });
      expect(relative.body.data.url).toMatch(/^\/v1\/currency\/rates\/series\/signed\?/);
      expect((await fetchLink(t, relative.body.data.url)).status).toBe(200);
    } finally {
      await configured.close();
      await proxied.close();
    }
  });
});

describe("the logs never hold a link's signature", () => {
  it('writes the path of a link request, answered or refused, and never its query', async () => {
    const link = await makeLink();
    const signature = new URLSearchParams(link.url.split('?')[1]).get('signature')!;
    logText = '';
    expect((await fetchLink(t, link.url)).status).toBe(200);
    expect((await fetchLink(t, withParam(link.url, 'start', '2024-03-02'))).status).toBe(403);
    const lines = logText
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line['msg'] === 'request');
    expect(requests.map((line) => [line['path'], line['status'], line['keyId'] ?? null, line['code'] ?? null])).toEqual([
      ['/v1/currency/rates/series/signed', 200, keyId, null],
      ['/v1/currency/rates/series/signed', 403, null, 'LINK_INVALID'],
    ]);
    expect(logText).not.toContain(signature);
    expect(logText).not.toContain('signature=');
  });
});

describe('in either REST execution, and without a secret in production', () => {
  it('REST_EXECUTION=sofa: the link route runs through SOFA, and its link opens the same export', async () => {
    const sofa = await createTestApp(
      { WEBHOOK_SECRET_KEY: SECRET, DATABASE_URL: databaseFile, REST_EXECUTION: 'sofa' },
      { rates: tableRates(PUBLICATIONS), clock },
    );
    try {
      const made = await sofa.call('POST', LINKS, { key, body: ASKED });
      expect(made.status, made.text).toBe(200);
      const linked = await fetchLink(sofa, made.body.data.url);
      expect(linked.status).toBe(200);
      expect(linked.text).toBe((await fetchLink(t, made.body.data.url)).text);
    } finally {
      await sofa.close();
    }
  });

  it('API_ENV=production without WEBHOOK_SECRET_KEY: 503 naming the variable, and the server serves on', async () => {
    const production = await createTestApp({ API_ENV: 'production' }, { rates: tableRates(PUBLICATIONS), clock });
    try {
      const refused = await production.call('POST', LINKS, { key: await production.createKey('developer'), body: ASKED });
      expect(refused.status).toBe(503);
      expect(refused.body.error.message).toMatch(/WEBHOOK_SECRET_KEY/);
      expect((await production.call('GET', '/v1/health')).status).toBe(200);
    } finally {
      await production.close();
    }
  });
});
