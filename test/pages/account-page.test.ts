import { afterEach, describe, expect, it } from 'vitest';
import { NEXT_STEP, PLAN_CHANGE } from '../../src/domain/errors';
import { hashApiKey } from '../../src/domain/keys';
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, sessionTokenHash } from '../../src/domain/sessions';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../src/domain/passwords';
import { LOGIN_LIMITS, NO_ACCOUNT_YET, SIGNUP_LIMIT } from '../../src/services/accounts';
import { createTestApp, type TestApp } from '../helpers/app';
import { pageClient } from '../helpers/page-client';

const PASSWORD = 'correct horse battery staple';
const SIGNUP_REFUSED = 'No account was made with this email and password. To use an account you have, log in with its password.';
let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function signedUp(env: Record<string, string> = {}, clock?: () => Date, email = 'ann@example.com') {
  t = await createTestApp(env, clock ? { clock } : {});
  const client = pageClient(t);
  const answer = await client.post('/account/signup', { email, password: PASSWORD });
  expect(answer.status).toBe(303);
  await client.get('/account');
  return { client, app: t };
}

async function withKey(app: TestApp, client: ReturnType<typeof pageClient>) {
  await client.post('/account/keys', { csrf: client.csrf(), env: 'test' });
  await client.get('/account');
  const key = client.shownKey()!;
  const found = await app.store.findActiveKeyByHash(hashApiKey(key));
  return { key, id: found!.key.id };
}

/** The page's forms in order: where each posts, its buttons' names and its markup. */
function formsOf(page: string) {
  return [...page.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)].map(([, action, text]) => ({
    action,
    text: text!,
    buttons: [...text!.matchAll(/<button[^>]*>([^<]+)<\/button>/g)].map((m) => m[1]),
  }));
}

const accountOf = async (app: TestApp, email: string) => (await app.store.findAccountByEmail(email))!;

describe('the page', () => {
  it('signed out: a sign-up form, then a log-in form, each with its own Email, Password and one button, so Enter sends the form it is pressed in', async () => {
    t = await createTestApp();
    const page = await pageClient(t).get('/account');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const forms = formsOf(page.text);
    expect(forms.map((f) => f.action)).toEqual(['/account/signup', '/account/login']);
    for (const form of forms) {
      expect(form.buttons).toHaveLength(1);
      expect(form.text).not.toContain('formaction');
    }
    const [signUp, logIn] = forms;
    expect(signUp!.buttons).toEqual(['Sign up']);
    expect(signUp!.text).toMatch(/<label for="signup-email">Email<\/label>/);
    expect(signUp!.text).toMatch(/<label for="signup-password">Password<\/label>/);
    expect(signUp!.text).toContain('autocomplete="new-password"');
    expect(logIn!.buttons).toEqual(['Log in']);
    expect(logIn!.text).toMatch(/<label for="login-email">Email<\/label>/);
    expect(logIn!.text).toContain('autocomplete="current-password"');
    expect(page.text).toMatch(/<h2 id="signup-title">New here\? Create an account<\/h2>/);
  });

  it(`the sign-up password says the server's minimum (${MIN_PASSWORD_LENGTH} characters) as minlength and beside the field; the server holds the same line`, async () => {
    t = await createTestApp();
    const [signUp, logIn] = formsOf((await pageClient(t).get('/account')).text);
    const field = /<input id="signup-password"[^>]*>/.exec(signUp!.text)![0];
    expect(field).toContain(`minlength="${MIN_PASSWORD_LENGTH}"`);
    expect(field).toContain(`maxlength="${MAX_PASSWORD_LENGTH}"`);
    expect(field).toContain('aria-describedby="signup-password-hint"');
    expect(signUp!.text).toContain(`<p id="signup-password-hint" class="muted">At least ${MIN_PASSWORD_LENGTH} characters;`);
    // Log-in sets no minimum: it refuses only what the server refuses.
    expect(logIn!.text).not.toContain('minlength');
    const short = 'x'.repeat(MIN_PASSWORD_LENGTH - 1);
    expect((await pageClient(t).post('/account/signup', { email: 'short@example.com', password: short })).status).toBe(400);
    expect((await pageClient(t).post('/account/signup', { email: 'exact@example.com', password: `${short}x` })).status).toBe(303);
  });

  it('signed in: email, plan, usage as "N of M conversions" with the reset date and a bar, and the keys', async () => {
    const { client, app } = await signedUp({}, () => new Date('2026-03-15T12:00:00Z'));
    const { key, id } = await withKey(app, client);
    expect((await app.call('GET', '/v1/convert?value=1&from=m&to=ft', { key })).status).toBe(200);
    await app.app.services.keyUse.flush();
    const page = await client.get('/account');
    expect(page.text).toContain('ann@example.com');
    expect(page.text).toContain('Plan: <strong>free</strong>');
    expect(page.text).toContain('1 of 1,000 conversions used this month (2026-03); resets on 2026-04-01 at 00:00 UTC.');
    expect(page.text).toMatch(/<progress aria-labelledby="usage" max="1000" value="1">/);
    // An end user is told whom to ask (the words of the API's refusals), not the operator's command line.
    expect(page.text).toContain(`To change plans, ${PLAN_CHANGE}.`);
    expect(page.text).not.toContain(NEXT_STEP.QUOTA_EXCEEDED);
    expect(page.text).not.toMatch(/admin |--email|--plan/);
    expect(page.text).toContain(`<code>${id}</code>`);
    expect(page.text).toContain(`…${key.slice(-4)}`);
    expect(page.text).toMatch(/<td data-label="Last used">2026-03-15<\/td>/);
    expect(page.text).toContain('999 conversions remain this month.');
    // The chart's last bar is today's, drawn from the daily usage the conversion was counted in.
    expect(page.text).toMatch(
      /<g data-day="2026-03-15"><title>15 Mar: 1 delivered, 0 refused for the quota, 0 refused for the rate limit<\/title><rect class="delivered" /,
    );
    expect(page.text).toContain('<desc id="usage-chart-desc">From 14 Feb to 15 Mar 2026 (UTC): 1 conversion delivered');
  });

  it('a used-up quota: the page says what to do in the words of the QUOTA_EXCEEDED refusal', async () => {
    const { client, app } = await signedUp({}, () => new Date('2026-03-15T12:00:00Z'));
    await app.store.consumeQuota((await accountOf(app, 'ann@example.com')).id, '2026-03', 1000, 1000);
    const page = await client.get('/account');
    expect(page.text).toContain(`0 conversions remain this month. ${NEXT_STEP.QUOTA_EXCEEDED}</p>`);
  });

  it('escapes what users write', async () => {
    const { client } = await signedUp({}, undefined, 'a<b>"x@example.com');
    const page = await client.get('/account');
    expect(page.text).toContain('a&lt;b&gt;&quot;x@example.com');
    expect(page.text).not.toContain('a<b>');
  });

  it('a new key is shown once: the redirect does not carry it and a reload never shows it again', async () => {
    const { client } = await signedUp();
    const created = await client.post('/account/keys', { csrf: client.csrf(), env: 'test' });
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/account');
    const first = await client.get('/account');
    const key = client.shownKey()!;
    expect(key).toMatch(/^msr_test_/);
    expect(first.text).toContain('shown only this once');
    const reload = await client.get('/account');
    expect(client.shownKey()).toBeUndefined();
    expect(reload.text).not.toContain(key);
  });

  it('a live key on a development server is created, with a warning that it will not work here', async () => {
    const { client } = await signedUp();
    await client.post('/account/keys', { csrf: client.csrf(), env: 'live' });
    const page = await client.get('/account');
    expect(client.shownKey()).toMatch(/^msr_live_/);
    expect(page.text).toContain('this server accepts only test keys, so it will not work here');
    expect(page.text).toMatch(/<input type="radio" name="env" value="test" checked>/);
  });

  it('the environment defaults to the one this server accepts (live in production)', async () => {
    const { client } = await signedUp({ API_ENV: 'production' });
    expect((await client.get('/account')).text).toMatch(/<input type="radio" name="env" value="live" checked>/);
    await client.post('/account/keys', { csrf: client.csrf() });
    await client.get('/account');
    expect(client.shownKey()).toMatch(/^msr_live_/);
  });

  it('rotation "Now" shows the new key and revokes the old one at once; revocation needs the confirmation step', async () => {
    const { client, app } = await signedUp();
    const old = await withKey(app, client);
    expect((await client.post(`/account/keys/${old.id}/rotate`, { csrf: client.csrf(), confirm: 'yes', grace: '0' })).status).toBe(303);
    await client.get('/account');
    const fresh = client.shownKey()!;
    expect((await app.call('GET', '/v1/convert?value=1&from=m&to=ft', { key: old.key })).status).toBe(401);
    expect((await app.call('GET', '/v1/convert?value=1&from=m&to=ft', { key: fresh })).status).toBe(200);
    const freshId = (await app.store.findActiveKeyByHash(hashApiKey(fresh)))!.key.id;
    const confirm = await client.get(`/account/keys/${freshId}/revoke`);
    expect(confirm.text).toContain(`Revoke key ${freshId}?`);
    expect(await app.store.findActiveKeyByHash(hashApiKey(fresh))).toBeDefined();
    // Without the confirmation field the post only leads back to the confirmation page.
    expect((await client.post(`/account/keys/${freshId}/revoke`, { csrf: client.csrf() })).headers.get('location')).toBe(
      `/account/keys/${freshId}/revoke`,
    );
    expect(await app.store.findActiveKeyByHash(hashApiKey(fresh))).toBeDefined();
    expect((await client.post(`/account/keys/${freshId}/revoke`, { csrf: client.csrf(), confirm: 'yes' })).status).toBe(303);
    expect(await app.store.findActiveKeyByHash(hashApiKey(fresh))).toBeUndefined();
  });

  it('another account’s key cannot be rotated or revoked: 404 and nothing changes', async () => {
    const { client, app } = await signedUp();
    const stranger = await app.createAccountKey();
    expect((await client.get(`/account/keys/${stranger.keyId}/rotate`)).status).toBe(404);
    expect((await client.post(`/account/keys/${stranger.keyId}/rotate`, { csrf: client.csrf(), confirm: 'yes', grace: '1h' })).status).toBe(
      404,
    );
    expect((await client.post(`/account/keys/${stranger.keyId}/revoke`, { csrf: client.csrf(), confirm: 'yes' })).status).toBe(404);
    expect(await app.store.findActiveKeyByHash(hashApiKey(stranger.key))).toBeDefined();
  });

  it('HEAD is answered on the page and its assets, with the headers and no body', async () => {
    t = await createTestApp();
    for (const path of ['/account', '/account/assets/account.css', '/account/assets/copy.js', '/account/assets/favicon.svg']) {
      const response = await t.fetch(path, { method: 'HEAD' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await response.text()).toBe('');
    }
  });

  it('unknown /account paths answer the contract 404, a wrong method 405 with Allow', async () => {
    t = await createTestApp();
    const client = pageClient(t);
    const missing = await client.get('/account/nothing-here');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ error: { code: 'NOT_FOUND', status: 404, requestId: expect.any(String) } });
    expect(missing.headers.get('cache-control')).toBe('no-store');
    const wrong = await client.post('/account', {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('defences', () => {
  it('a rotate replayed with a foreign Origin is 403 and changes nothing', async () => {
    const { client, app } = await signedUp();
    const { key, id } = await withKey(app, client);
    const replay = await client.post(
      `/account/keys/${id}/rotate`,
      { csrf: client.csrf(), confirm: 'yes', grace: '1h' },
      { origin: 'https://evil.example' },
    );
    expect(replay.status).toBe(403);
    expect(replay.text).toContain('came from another site');
    expect(await app.store.findActiveKeyByHash(hashApiKey(key))).toBeDefined();
    expect(await app.store.listKeys((await accountOf(app, 'ann@example.com')).id)).toHaveLength(1);
  });

  it('a post without Origin is 403 unless the browser says Sec-Fetch-Site: same-origin', async () => {
    const { client, app } = await signedUp();
    const { id } = await withKey(app, client);
    const csrf = client.csrf();
    expect((await client.post(`/account/keys/${id}/rotate`, { csrf }, { origin: '' })).status).toBe(403);
    expect((await client.post(`/account/keys/${id}/rotate`, { csrf }, { origin: 'null', 'sec-fetch-site': 'same-origin' })).status).toBe(
      303,
    );
    expect(
      (await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD }, { origin: 'http://localhost.evil.example' }))
        .status,
    ).toBe(403);
  });

  it('a missing or wrong CSRF token is 403 and changes nothing', async () => {
    const { client, app } = await signedUp();
    const { key, id } = await withKey(app, client);
    const csrf = client.csrf();
    expect((await client.post(`/account/keys/${id}/rotate`, {})).status).toBe(403);
    expect((await client.post(`/account/keys/${id}/rotate`, { csrf: 'x'.repeat(43), confirm: 'yes', grace: '0' })).status).toBe(403);
    expect((await client.post('/account/keys', { csrf: '' })).status).toBe(403);
    expect((await client.post('/account/logout', { csrf: csrf.slice(1) })).status).toBe(403);
    expect(await app.store.findActiveKeyByHash(hashApiKey(key))).toBeDefined();
    expect(await app.store.listKeys((await accountOf(app, 'ann@example.com')).id)).toHaveLength(1);
    expect((await client.get('/account')).text).toContain('>Log out</button>');
  });

  it('the CSRF token of one session does not work in another', async () => {
    const { client: ann, app } = await signedUp();
    const annCsrf = ann.csrf();
    const bob = pageClient(app);
    await bob.post('/account/signup', { email: 'bob@example.com', password: PASSWORD });
    expect((await bob.post('/account/keys', { csrf: annCsrf })).status).toBe(403);
  });

  it(`failed log-ins are limited per email and IP: attempt ${LOGIN_LIMITS.perEmailAndIp + 1} of 30 is 429, even with the right password`, async () => {
    const { client } = await signedUp();
    await client.post('/account/logout', { csrf: client.csrf() });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await client.post('/account/login', { email: 'ann@example.com', password: `wrong password ${i}` })).status);
    expect(statuses.slice(0, LOGIN_LIMITS.perEmailAndIp)).toEqual(Array(LOGIN_LIMITS.perEmailAndIp).fill(401));
    expect(statuses.slice(LOGIN_LIMITS.perEmailAndIp)).toEqual(Array(30 - LOGIN_LIMITS.perEmailAndIp).fill(429));
    const limited = await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.text).toMatch(/Too many failed log-ins (for this email )?from your address\. Please wait \d+ minutes and try again\./);
    expect(client.cookie).toBeUndefined();
  });

  it(`failed log-ins are limited per IP across emails: attempt ${LOGIN_LIMITS.perIp + 1} of 30 is 429`, async () => {
    t = await createTestApp();
    const client = pageClient(t);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await client.post('/account/login', { email: `user${i}@example.com`, password: 'wrong password here' })).status);
    expect(statuses.slice(0, LOGIN_LIMITS.perIp)).toEqual(Array(LOGIN_LIMITS.perIp).fill(401));
    expect(statuses.slice(LOGIN_LIMITS.perIp)).toEqual(Array(30 - LOGIN_LIMITS.perIp).fill(429));
  });

  it('successful log-ins do not count as failures', async () => {
    const { app } = await signedUp();
    const client = pageClient(app);
    for (let i = 0; i < LOGIN_LIMITS.perEmailAndIp + 2; i++) {
      expect((await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD })).status).toBe(303);
    }
  });

  it('log-in does not say whether the email exists, and its refusal says what to do when there is no account yet', async () => {
    const { app } = await signedUp();
    const client = pageClient(app);
    const wrongPassword = await client.post('/account/login', { email: 'ann@example.com', password: 'not the password' });
    const unknownEmail = await client.post('/account/login', { email: 'nobody@example.com', password: 'not the password' });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    const messageOf = (text: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(text)?.[1];
    expect(messageOf(wrongPassword.text)).toBe(`The email or the password is wrong. ${NO_ACCOUNT_YET}`);
    expect(messageOf(unknownEmail.text)).toBe(messageOf(wrongPassword.text));
    // The refusal is in the log-in section, the email kept in both forms, the focus on the log-in password.
    const [signUp, logIn] = formsOf(unknownEmail.text);
    expect(unknownEmail.text.indexOf('role="alert"')).toBeGreaterThan(unknownEmail.text.indexOf('id="login-title"'));
    expect(signUp!.text).toContain('value="nobody@example.com"');
    expect(logIn!.text).toContain('value="nobody@example.com"');
    expect(/<input id="login-password"[^>]*>/.exec(logIn!.text)![0]).toContain('autofocus');
    // Both pages are the same but for the email typed.
    expect(unknownEmail.text).toBe(wrongPassword.text.replaceAll('ann@example.com', 'nobody@example.com'));
    const json = await client.post(
      '/account/login',
      { email: 'nobody@example.com', password: 'not the password' },
      { accept: 'application/json' },
    );
    expect(JSON.parse(json.text).error).toMatchObject({
      code: 'UNAUTHORIZED',
      message: `The email or the password is wrong. ${NO_ACCOUNT_YET}`,
    });
  });

  it('sign-up does not say whether the email exists: with its password a taken email logs in, as a new one does', async () => {
    const { app } = await signedUp();
    const before = await accountOf(app, 'ann@example.com');
    const client = pageClient(app);
    const again = await client.post('/account/signup', { email: 'Ann@Example.com', password: PASSWORD });
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe('/account');
    expect(client.cookie).toBeDefined();
    const page = await client.get('/account');
    expect(page.text).toContain('ann@example.com');
    expect(page.text).toContain('Plan: <strong>free</strong>');
    expect((await accountOf(app, 'ann@example.com')).id).toBe(before.id);
  });

  it('sign-up with a taken email and another password names no account, on the page and in JSON', async () => {
    const { app } = await signedUp();
    const client = pageClient(app);
    const refused = await client.post('/account/signup', { email: 'ann@example.com', password: 'another long password' });
    expect(refused.status).toBe(401);
    const message = /<p class="error" role="alert">([^<]*)<\/p>/.exec(refused.text)?.[1];
    expect(message).toBe(SIGNUP_REFUSED);
    expect(refused.text).not.toMatch(/exists|already|taken|registered/i);
    expect(refused.text).toContain('value="ann@example.com"');
    expect(client.cookie).toBeUndefined();
    const json = await client.post(
      '/account/signup',
      { email: 'ann@example.com', password: 'another long password' },
      { accept: 'application/json' },
    );
    expect(json.status).toBe(401);
    expect(JSON.parse(json.text).error).toMatchObject({ code: 'UNAUTHORIZED', message: SIGNUP_REFUSED });
  });

  it('a refused sign-up counts as a failed log-in for the email, so sign-up is no way around the log-in limit', async () => {
    const { app } = await signedUp();
    const client = pageClient(app);
    // The sign-up above spent one of this IP's sign-ups: the rest are refused sign-ups, the failures left failed log-ins.
    const refusedSignUps = SIGNUP_LIMIT.perIp - 1;
    for (let i = 0; i < refusedSignUps; i++) {
      expect((await client.post('/account/signup', { email: 'ann@example.com', password: `wrong password ${i}` })).status).toBe(401);
    }
    for (let i = refusedSignUps; i < LOGIN_LIMITS.perEmailAndIp; i++) {
      expect((await client.post('/account/login', { email: 'ann@example.com', password: `wrong password ${i}` })).status).toBe(401);
    }
    expect((await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD })).status).toBe(429);
  });

  it(`sign-up is limited per IP: account ${SIGNUP_LIMIT.perIp + 1} is 429`, async () => {
    t = await createTestApp();
    const statuses: number[] = [];
    for (let i = 0; i <= SIGNUP_LIMIT.perIp; i++)
      statuses.push((await pageClient(t).post('/account/signup', { email: `u${i}@example.com`, password: PASSWORD })).status);
    expect(statuses).toEqual([...Array(SIGNUP_LIMIT.perIp).fill(303), 429]);
    expect(await t.store.findAccountByEmail(`u${SIGNUP_LIMIT.perIp}@example.com`)).toBeUndefined();
  });

  it('sign-up checks the password length and the email', async () => {
    t = await createTestApp();
    const short = await pageClient(t).post('/account/signup', { email: 'ann@example.com', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('at least 12 characters');
    expect(short.text).toContain('value="ann@example.com"');
    expect((await pageClient(t).post('/account/signup', { email: 'not an email', password: PASSWORD })).status).toBe(400);
    expect(await t.store.findAccountByEmail('ann@example.com')).toBeUndefined();
  });

  it('SIGNUP=closed removes the Sign up button and refuses sign-up posts', async () => {
    t = await createTestApp({ SIGNUP: 'closed' });
    const client = pageClient(t);
    const page = await client.get('/account');
    expect(page.text).not.toContain('>Sign up</button>');
    expect(formsOf(page.text).map((f) => f.action)).toEqual(['/account/login']);
    expect(page.text).toContain('Sign-up is closed');
    const refused = await client.post('/account/signup', { email: 'ann@example.com', password: PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('<p class="error" role="alert">Sign-up is closed on this server; ask the operator for an account.</p>');
    // Where nobody can sign up, a refused log-in does not suggest it.
    const logIn = await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD });
    expect(logIn.status).toBe(401);
    expect(logIn.text).toContain('<p class="error" role="alert">The email or the password is wrong.</p>');
    expect(await t.store.findAccountByEmail('ann@example.com')).toBeUndefined();
  });

  it('the session cookie is HttpOnly, SameSite=Lax, Path=/, and Secure only when asked or behind TLS', async () => {
    // `https` sends what a proxy that terminated TLS forwards: X-Forwarded-Proto and the browser's https Origin.
    const cookieOf = async (env: Record<string, string>, headers: Record<string, string> = {}, https = false) => {
      const app = await createTestApp(env);
      try {
        const tls: Record<string, string> = https ? { 'x-forwarded-proto': 'https', origin: app.origin.replace(/^http:/, 'https:') } : {};
        const answer = await pageClient(app).post(
          '/account/signup',
          { email: 'ann@example.com', password: PASSWORD },
          { ...tls, ...headers },
        );
        return answer.headers.get('set-cookie')!;
      } finally {
        await app.close();
      }
    };
    expect(await cookieOf({})).toMatch(/^msr_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(await cookieOf({ COOKIE_SECURE: 'true' })).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
    // Behind a trusted proxy that terminated TLS (the page's own origin is then https).
    expect(await cookieOf({ TRUST_PROXY: '1' }, {}, true)).toMatch(/; Secure$/);
    // An X-Forwarded-Proto from a client that is not a trusted proxy counts for nothing.
    expect(await cookieOf({}, { 'x-forwarded-proto': 'https' })).not.toMatch(/Secure/);
    expect(await cookieOf({ TRUST_PROXY: '1', COOKIE_SECURE: 'false' }, {}, true)).not.toMatch(/Secure/);
  });

  it('every account response carries the CSP (no inline script, no framing), X-Frame-Options and no-store', async () => {
    const { client } = await signedUp();
    const answers = [
      await client.get('/account'),
      await client.post('/account/keys', { csrf: client.csrf() }),
      await client.post('/account/keys', { csrf: 'wrong' }),
      await client.get('/account/assets/account.css'),
      await client.get('/account/assets/copy.js'),
      await client.get('/account/assets/favicon.svg'),
      await client.get('/account/missing'),
    ];
    for (const answer of answers) {
      const csp = answer.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const page = (await client.get('/account')).text;
    expect(page).not.toMatch(/<script(?![^>]*\bsrc="\/account\/assets\/copy\.js")/);
    expect(page).not.toMatch(/\son[a-z]+=|style=/);
  });
});

describe('sessions', () => {
  it('log-in issues a new session id and the previous one stops working (no fixation)', async () => {
    const { client, app } = await signedUp();
    const before = client.cookie!;
    await client.post('/account/login', { email: 'ann@example.com', password: PASSWORD });
    expect(client.cookie).toBeDefined();
    expect(client.cookie).not.toBe(before);
    expect(await app.store.findSession(sessionTokenHash(before))).toBeUndefined();
    const planted = pageClient(app);
    planted.cookie = before;
    expect((await planted.get('/account')).text).toContain('>Log in</button>');
  });

  it('log-out ends the session on the server, not only in the browser', async () => {
    const { client, app } = await signedUp();
    const token = client.cookie!;
    const out = await client.post('/account/logout', { csrf: client.csrf() });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^msr_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/);
    expect(await app.store.findSession(sessionTokenHash(token))).toBeUndefined();
    const replay = pageClient(app);
    replay.cookie = token;
    expect((await replay.get('/account')).text).toContain('>Log in</button>');
  });

  it('a password change ends every session of the account', async () => {
    const { client, app } = await signedUp();
    await app.app.services.accounts.setPassword('ann@example.com', 'a brand new password');
    expect((await client.get('/account')).text).toContain('>Log in</button>');
    expect((await pageClient(app).post('/account/login', { email: 'ann@example.com', password: PASSWORD })).status).toBe(401);
    expect((await pageClient(app).post('/account/login', { email: 'ann@example.com', password: 'a brand new password' })).status).toBe(303);
  });

  it('an idle session ends after the idle period', async () => {
    let now = new Date('2026-03-15T12:00:00Z');
    const { client } = await signedUp({}, () => now);
    now = new Date(now.getTime() + SESSION_IDLE_MS - 1000);
    expect((await client.get('/account')).text).toContain('>Log out</button>');
    now = new Date(now.getTime() + SESSION_IDLE_MS - 1000);
    expect((await client.get('/account')).text).toContain('>Log out</button>');
    now = new Date(now.getTime() + SESSION_IDLE_MS);
    const page = await client.get('/account');
    expect(page.text).toContain('Your session has ended');
    expect(client.cookie).toBeUndefined();
  });

  it('a log-in sweeps sessions that expired without a log-out', async () => {
    let now = new Date('2026-03-15T12:00:00Z');
    const { client, app } = await signedUp({}, () => now);
    const abandoned = client.cookie!;
    now = new Date(now.getTime() + SESSION_IDLE_MS);
    await pageClient(app).post('/account/login', { email: 'ann@example.com', password: PASSWORD });
    expect(await app.store.findSession(sessionTokenHash(abandoned))).toBeUndefined();
  });

  it('an active session ends at the absolute limit', async () => {
    const start = new Date('2026-03-15T12:00:00Z').getTime();
    let now = new Date(start);
    const { client } = await signedUp({}, () => now);
    for (let at = start; at < start + SESSION_ABSOLUTE_MS; at += SESSION_IDLE_MS / 2) {
      now = new Date(at);
      expect((await client.get('/account')).text).toContain('>Log out</button>');
    }
    now = new Date(start + SESSION_ABSOLUTE_MS);
    expect((await client.get('/account')).text).toContain('Your session has ended');
  });
});
