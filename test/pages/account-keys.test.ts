import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/domain/keys';
import { createTestApp, type TestApp } from '../helpers/app';
import { pageClient } from '../helpers/page-client';

/**
 * The account page's key lifecycle: rotation with a grace chosen on a confirmation step, keys
 * created with an expiry and listed with it, the MCP URL beside a new key, and the Origin and
 * CSRF checks on these forms. The clock is fixed and moved by the tests.
 */
const PASSWORD = 'correct horse battery staple';
const START = new Date('2026-03-15T12:00:00Z');
const HOUR = 3_600_000;
const CONVERT = '/v1/convert?value=1&from=m&to=ft';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function signedUp() {
  let now = START;
  t = await createTestApp({}, { clock: () => now });
  const client = pageClient(t);
  expect((await client.post('/account/signup', { email: 'ann@example.com', password: PASSWORD })).status).toBe(303);
  await client.get('/account');
  return { client, app: t, setNow: (at: Date) => (now = at) };
}

async function createKey(app: TestApp, client: ReturnType<typeof pageClient>, fields: Record<string, string> = {}) {
  const answer = await client.post('/account/keys', { csrf: client.csrf(), env: 'test', ...fields });
  const page = await client.get('/account');
  const key = client.shownKey();
  const found = key === undefined ? undefined : await app.store.findActiveKeyByHash(hashApiKey(key));
  return { answer, page, key: key!, id: found?.key.id ?? '' };
}

/** Moving the clock past the session's idle limit ends it: log in again. */
async function logInAgain(client: ReturnType<typeof pageClient>) {
  expect((await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD })).status).toBe(303);
  return (await client.get('/account')).text;
}

const keyCount = async (app: TestApp) => (await app.store.listKeys((await app.store.findAccountByEmail('ann@example.com'))!.id)).length;
const expiresCell = (page: string, id: string) =>
  new RegExp(`<code>${id}</code><br>[\\s\\S]*?<td data-label="Expires">([^\\n]*)</td>`).exec(page)?.[1];

describe('rotation with a grace', () => {
  it('Rotate leads to a confirmation that says, for Now / 1 hour / 24 hours / 7 days, when the old key stops; none is preselected', async () => {
    const { client, app } = await signedUp();
    const { id } = await createKey(app, client);
    expect((await client.get('/account')).text).toContain(`<form method="get" action="/account/keys/${id}/rotate"><button`);
    const page = (await client.get(`/account/keys/${id}/rotate`)).text;
    expect(page).toContain(`Rotate key ${id}?`);
    const choices = [
      ...page.matchAll(/<input type="radio" name="grace" value="([^"]+)" required> <strong>([^<]+)<\/strong>: ([^<]+)\.<\/label>/g),
    ].map((m) => m.slice(1));
    expect(choices).toEqual([
      ['0', 'Now', 'the old key stops at once'],
      ['1h', 'In 1 hour', 'the old key keeps working until 2026-03-15 13:00 UTC, then stops'],
      ['24h', 'In 24 hours', 'the old key keeps working until 2026-03-16 12:00 UTC, then stops'],
      ['7d', 'In 7 days', 'the old key keeps working until 2026-03-22 12:00 UTC, then stops'],
    ]);
    expect(page).not.toContain('checked');
    expect(page).toContain('name="confirm" value="yes"');
  });

  it('a key with its own earlier expiry: the confirmation says the earlier end', async () => {
    const { client, app } = await signedUp();
    const { id } = await createKey(app, client, { expires: 'date', expiresOn: '2026-03-17' });
    const page = (await client.get(`/account/keys/${id}/rotate`)).text;
    expect(page).toContain('<strong>In 24 hours</strong>: the old key keeps working until 2026-03-16 12:00 UTC, then stops.');
    expect(page).toContain('<strong>In 7 days</strong>: the old key keeps working until 2026-03-17 00:00 UTC, then stops.');
  });

  it('1 hour: both keys answer, the old one with Key-Expires an hour ahead; after the hour the old one is 401 KEY_EXPIRED', async () => {
    const { client, app, setNow } = await signedUp();
    const old = await createKey(app, client);
    expect((await client.post(`/account/keys/${old.id}/rotate`, { csrf: client.csrf(), confirm: 'yes', grace: '1h' })).status).toBe(303);
    const page = (await client.get('/account')).text;
    const fresh = client.shownKey()!;
    expect(fresh).not.toBe(old.key);
    expect(page).toContain(`Key ${old.id} was rotated and keeps working until 2026-03-15 13:00 UTC, then stops`);
    expect(page).toMatch(/rotated, replaced by <code>key_\w+<\/code>; works until it expires/);
    expect(expiresCell(page, old.id)).toBe('2026-03-15 13:00');
    const oldAnswer = await app.call('GET', CONVERT, { key: old.key });
    expect(oldAnswer.status).toBe(200);
    expect(oldAnswer.headers.get('key-expires')).toBe('Sun, 15 Mar 2026 13:00:00 GMT');
    expect((await app.call('GET', CONVERT, { key: fresh })).status).toBe(200);
    setNow(new Date(START.getTime() + HOUR));
    const late = await app.call('GET', CONVERT, { key: old.key });
    expect([late.status, late.body.error.code]).toEqual([401, 'KEY_EXPIRED']);
    expect((await app.call('GET', CONVERT, { key: fresh })).status).toBe(200);
    expect(expiresCell(await logInAgain(client), old.id)).toBe('<strong>expired</strong> 2026-03-15 13:00');
  });

  it('a rotated key in its grace offers Revoke but no second Rotate', async () => {
    const { client, app } = await signedUp();
    const old = await createKey(app, client);
    await client.post(`/account/keys/${old.id}/rotate`, { csrf: client.csrf(), confirm: 'yes', grace: '7d' });
    const page = (await client.get('/account')).text;
    expect(page).not.toContain(`/account/keys/${old.id}/rotate`);
    expect(page).toContain(`/account/keys/${old.id}/revoke`);
  });

  it.each([[''], ['2h'], ['8d'], ['1h '], ['-1h']])('a grace of %j is 400 and changes nothing', async (grace) => {
    const { client, app } = await signedUp();
    const old = await createKey(app, client);
    const answer = await client.post(`/account/keys/${old.id}/rotate`, { csrf: client.csrf(), confirm: 'yes', grace });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Choose when the old key stops: 0, 1h, 24h, 7d');
    expect(await keyCount(app)).toBe(1);
    expect((await app.call('GET', CONVERT, { key: old.key })).status).toBe(200);
  });

  it('a rotation with a grace from another Origin, without Origin, or with a wrong CSRF token is 403 and changes nothing', async () => {
    const { client, app } = await signedUp();
    const old = await createKey(app, client);
    const fields = { csrf: client.csrf(), confirm: 'yes', grace: '24h' };
    expect((await client.post(`/account/keys/${old.id}/rotate`, fields, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await client.post(`/account/keys/${old.id}/rotate`, fields, { origin: '' })).status).toBe(403);
    expect((await client.post(`/account/keys/${old.id}/rotate`, { ...fields, csrf: 'y'.repeat(43) })).status).toBe(403);
    expect((await client.post(`/account/keys/${old.id}/rotate`, { confirm: 'yes', grace: '24h' })).status).toBe(403);
    expect(await keyCount(app)).toBe(1);
    expect((await app.store.findKeyById(old.id))!.replacedBy).toBeNull();
  });
});

describe('keys with an expiry', () => {
  it('the create form offers never (chosen), 30, 60 and 90 days with their ends, and a date from tomorrow', async () => {
    const { client } = await signedUp();
    const page = (await client.get('/account')).text;
    expect(page).toContain('<input type="radio" name="expires" value="none" checked> Never');
    expect(page).toContain('<input type="radio" name="expires" value="30"> In 30 days (2026-04-14 12:00 UTC)');
    expect(page).toContain('<input type="radio" name="expires" value="90"> In 90 days (2026-06-13 12:00 UTC)');
    expect(page).toContain('<input type="date" name="expiresOn" min="2026-03-16"');
  });

  it.each([
    [{ expires: 'none' }, 'never', null],
    [{}, 'never', null],
    [{ expires: '30' }, '2026-04-14 12:00 UTC', '2026-04-14T12:00:00.000Z'],
    [{ expires: '60' }, '2026-05-14 12:00 UTC', '2026-05-14T12:00:00.000Z'],
    [{ expires: '90' }, '2026-06-13 12:00 UTC', '2026-06-13T12:00:00.000Z'],
    [{ expires: 'date', expiresOn: '2027-01-31' }, '2027-01-31 00:00 UTC', '2027-01-31T00:00:00.000Z'],
    [{ expires: 'none', expiresOn: '2026-03-16' }, '2026-03-16 00:00 UTC', '2026-03-16T00:00:00.000Z'],
  ])('%j: the key is listed with "%s" and stored with that end', async (fields, shown, stored) => {
    const { client, app } = await signedUp();
    const { id, page } = await createKey(app, client, fields);
    expect(expiresCell(page.text, id)).toBe(shown.replace(' UTC', ''));
    expect((await app.store.findKeyById(id))!.expiresAt).toBe(stored);
    if (stored) expect(page.text).toContain(`It stops working at <strong>${shown}</strong>.`);
  });

  it.each([
    [{ expires: 'date', expiresOn: '2026-03-15' }, 'is not after today'],
    [{ expires: 'date', expiresOn: '2026-02-30' }, 'is not a date'],
    [{ expires: 'date' }, 'is not a date'],
    [{ expires: '45' }, 'Choose an expiry'],
    [{ expires: '30', expiresOn: '2027-01-31' }, 'not both'],
  ])('%j is 400 with "%s" and makes no key', async (fields, text) => {
    const { client, app } = await signedUp();
    const { answer } = await createKey(app, client, fields);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain(text);
    expect(await keyCount(app)).toBe(0);
  });

  it('a key past its expiry is 401 KEY_EXPIRED and listed as expired, without Rotate', async () => {
    const { client, app, setNow } = await signedUp();
    const { id, key } = await createKey(app, client, { expires: '30' });
    expect((await app.call('GET', CONVERT, { key })).headers.get('key-expires')).toBe('Tue, 14 Apr 2026 12:00:00 GMT');
    setNow(new Date('2026-04-14T12:00:00Z'));
    expect((await app.call('GET', CONVERT, { key })).body.error.code).toBe('KEY_EXPIRED');
    const page = await logInAgain(client);
    expect(expiresCell(page, id)).toBe('<strong>expired</strong> 2026-04-14 12:00');
    expect(page).not.toContain(`/account/keys/${id}/rotate`);
  });

  it('creating a key with an expiry from another Origin or with a wrong CSRF token is 403 and makes no key', async () => {
    const { client, app } = await signedUp();
    const fields = { csrf: client.csrf(), env: 'test', expires: '30' };
    expect((await client.post('/account/keys', fields, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await client.post('/account/keys', { ...fields, csrf: 'z'.repeat(43) })).status).toBe(403);
    expect(await keyCount(app)).toBe(0);
  });
});

describe('the MCP URL', () => {
  it('is shown beside a new key, at this server’s origin, with the Bearer hint', async () => {
    const { client, app } = await signedUp();
    const { page } = await createKey(app, client);
    expect(page.text).toContain(`<code id="mcp-url">${t!.origin}/mcp</code>`);
    expect(page.text).toContain('<code>Authorization: Bearer &lt;your key&gt;</code>');
    expect((await client.get('/account')).text).not.toContain('mcp-url');
  });
});
