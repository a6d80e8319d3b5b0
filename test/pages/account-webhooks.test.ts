import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { pageClient } from '../helpers/page-client';

/**
 * Webhook endpoints on the account page: added with the signing secret shown once, listed with
 * their latest deliveries (written and attempted through the real webhook store), removed after a
 * confirmation step; the Origin and CSRF checks on these forms; another account's endpoint is 404.
 */
const PASSWORD = 'correct horse battery staple';
const NOW = new Date('2026-03-15T12:00:00Z');
const URL_A = 'http://127.0.0.1:9/hooks/a';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function signedUp() {
  t = await createTestApp({}, { clock: () => NOW });
  const client = pageClient(t);
  expect((await client.post('/account/signup', { email: 'ann@example.com', password: PASSWORD })).status).toBe(303);
  await client.get('/account');
  const account = (await t.store.findAccountByEmail('ann@example.com'))!;
  return { client, app: t, account };
}

async function addEndpoint(client: ReturnType<typeof pageClient>, url = URL_A) {
  const answer = await client.post('/account/webhooks', { csrf: client.csrf(), url });
  const page = (await client.get('/account')).text;
  return { answer, page, secret: /<code id="new-secret">([^<]+)<\/code>/.exec(page)?.[1], id: /(whe_[0-9a-f]{24})/.exec(page)?.[1] ?? '' };
}

const endpointsOf = (app: TestApp, accountId: string) => app.app.services.webhooks.list(accountId);

describe('webhook endpoints on the account page', () => {
  it('adds an endpoint: its whsec_ secret is shown once, then it is listed without it', async () => {
    const { client, app, account } = await signedUp();
    const { answer, page, secret, id } = await addEndpoint(client);
    expect([answer.status, answer.headers.get('location')]).toEqual([303, '/account#webhooks']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    expect(page).toContain('shown only this once');
    expect(page).toContain(`Webhook endpoint ${id} added for ${URL_A}.`);
    expect(await endpointsOf(app, account.id)).toMatchObject([{ id, url: URL_A }]);
    const reload = (await client.get('/account')).text;
    expect(reload).not.toContain(secret!);
    expect(reload).toContain(`<code>${URL_A}</code>`);
    expect(reload).toContain('no events yet');
  });

  it.each([
    ['ftp://example.com/hook', 'http'],
    ['not a url', 'URL'],
    ['', 'URL'],
  ])('refuses %j with 400 and a message, adding nothing', async (url, text) => {
    const { client, app, account } = await signedUp();
    const { answer } = await addEndpoint(client, url);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('Please check the form');
    expect(answer.text).toContain(text);
    expect(await endpointsOf(app, account.id)).toEqual([]);
  });

  it("lists each endpoint's last deliveries: delivered, waiting for a retry after a failure, and failed", async () => {
    const { client, app, account } = await signedUp();
    const { id } = await addEndpoint(client);
    const store = app.store.webhooks;
    const at = NOW.toISOString();
    for (const n of [1, 2, 3])
      await store.recordEvent(
        { identity: `page-test-${n}`, accountId: account.id, type: n === 1 ? 'quota.threshold' : 'key.expiring', data: { n } },
        at,
      );
    const claimed = await store.claimDue(at, new Date(NOW.getTime() + 60_000).toISOString(), 10);
    expect(claimed).toHaveLength(3);
    const [first, second, third] = claimed.sort((a, b) => a.eventId.localeCompare(b.eventId));
    await store.finishAttempt(first!, { kind: 'delivered', status: 204 }, at);
    await store.finishAttempt(second!, { kind: 'retry', status: 503, error: 'HTTP 503', nextAttemptAt: '2026-03-15T12:05:00.000Z' }, at);
    await store.finishAttempt(third!, { kind: 'failed', status: null, error: 'timed out after 5 s' }, at);
    const page = (await client.get('/account')).text;
    const row = page.slice(page.indexOf(`<code>${URL_A}</code>`));
    expect(row).toContain('1 pending, 1 failed');
    expect(row).toMatch(/<code>(quota\.threshold|key\.expiring)<\/code>, 2026-03-15 12:00 UTC: <span class="ok">delivered<\/span><\/li>/);
    expect(row).toContain('pending, attempt 1 failed, next try 2026-03-15 12:05 UTC (last: 503)');
    expect(row).toContain('<strong class="failed">failed</strong> after 1 attempt (last: timed out after 5 s)');
    expect(row).toContain(`/account/webhooks/${id}/remove`);
  });

  it('removes an endpoint only after its confirmation step', async () => {
    const { client, app, account } = await signedUp();
    const { id } = await addEndpoint(client);
    const confirm = await client.get(`/account/webhooks/${id}/remove`);
    expect(confirm.text).toContain('Remove webhook endpoint?');
    expect(confirm.text).toContain(`<code>${URL_A}</code> (${id}) will get no more events`);
    expect((await client.post(`/account/webhooks/${id}/remove`, { csrf: client.csrf() })).headers.get('location')).toBe(
      `/account/webhooks/${id}/remove`,
    );
    expect(await endpointsOf(app, account.id)).toHaveLength(1);
    expect((await client.post(`/account/webhooks/${id}/remove`, { csrf: client.csrf(), confirm: 'yes' })).status).toBe(303);
    expect(await endpointsOf(app, account.id)).toEqual([]);
    expect((await client.get('/account')).text).toContain(`Webhook endpoint ${id} (${URL_A}) is removed`);
  });

  it("another account's endpoint cannot be seen or removed: 404 and nothing changes", async () => {
    const { client, app } = await signedUp();
    const stranger = await app.createAccountKey();
    const { endpoint } = await app.app.services.webhooks.add({ accountId: stranger.account.id, url: 'http://127.0.0.1:9/theirs' });
    expect((await client.get(`/account/webhooks/${endpoint.id}/remove`)).status).toBe(404);
    expect((await client.post(`/account/webhooks/${endpoint.id}/remove`, { csrf: client.csrf(), confirm: 'yes' })).status).toBe(404);
    expect(await endpointsOf(app, stranger.account.id)).toHaveLength(1);
  });

  it('adding or removing from another Origin, without Origin, or with a wrong CSRF token is 403 and changes nothing', async () => {
    const { client, app, account } = await signedUp();
    const { id } = await addEndpoint(client);
    const add = { csrf: client.csrf(), url: 'http://127.0.0.1:9/hooks/b' };
    const remove = { csrf: client.csrf(), confirm: 'yes' };
    expect((await client.post('/account/webhooks', add, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await client.post('/account/webhooks', add, { origin: '' })).status).toBe(403);
    expect((await client.post('/account/webhooks', { ...add, csrf: 'w'.repeat(43) })).status).toBe(403);
    expect((await client.post(`/account/webhooks/${id}/remove`, remove, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await client.post(`/account/webhooks/${id}/remove`, { confirm: 'yes' })).status).toBe(403);
    expect((await endpointsOf(app, account.id)).map((e) => e.url)).toEqual([URL_A]);
  });
});
