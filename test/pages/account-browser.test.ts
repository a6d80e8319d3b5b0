import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH } from '../../src/domain/passwords';
import { NO_ACCOUNT_YET } from '../../src/services/accounts';
import { browserAvailable, launchChromium, startServer, type RunningServer } from '../helpers/browser';

/**
 * The account page in a real Chromium against the real server process, driven only by the
 * labels and button names a person sees, each form sent with Enter as a person does: a new email
 * in the log-in form (refused, with the next step), a password too short for sign-up (held back by
 * the browser), sign-up, a key that converts, rotation, revocation, log-out and log-in; then a foreign-origin replay, and a search of the data directory and the
 * logs for every secret the flow handled.
 */
const EMAIL = 'browser@example.com';
const PASSWORD = 'a passphrase nobody guesses';

const run = browserAvailable();
let server: RunningServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let dataDir: string;
const secrets = new Set<string>([PASSWORD]);
const consoleErrors: string[] = [];

const convert = (key: string) =>
  fetch(`${server.base}/v1/convert?value=1&from=m&to=ft`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
const sessionCookie = async () => (await context.cookies()).find((c) => c.name === 'msr_session');
const signUpForm = () => page.getByRole('form', { name: 'Create an account' });
const logInForm = () => page.getByRole('form', { name: 'Log in' });
const shownKey = async () => (await page.locator('#new-key').textContent())!.trim();

describe.skipIf(!run)('the account page in Chromium', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-browser-'));
    server = await startServer({ DATA_DIR: dataDir });
    browser = await launchChromium();
    context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    context.setDefaultTimeout(8_000);
    page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  let firstKey = '';
  let rotatedKey = '';
  let rotateRequest: { url: string; body: string } | undefined;

  it('a new email typed into Log in and sent with Enter: refused with the next step, the email kept in the sign-up form', async () => {
    const response = await page.goto(`${server.base}/account`);
    const headers = response!.headers();
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['cache-control']).toBe('no-store');
    await logInForm().getByLabel('Email').fill(EMAIL);
    await logInForm().getByLabel('Password').fill(PASSWORD);
    await logInForm().getByLabel('Password').press('Enter');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe(`The email or the password is wrong. ${NO_ACCOUNT_YET}`);
    expect(page.url()).toBe(`${server.base}/account/login`);
    expect(await signUpForm().getByLabel('Email').inputValue()).toBe(EMAIL);
    expect(await sessionCookie()).toBeUndefined();
    // The refusal's page came with its status, 401, which Chromium logs; the other checks of the console stay.
    expect(consoleErrors.splice(0)).toEqual(['Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
  });

  it(`the sign-up password says its minimum: shorter than ${MIN_PASSWORD_LENGTH} characters, Enter sends nothing`, async () => {
    await page.goto(`${server.base}/account`);
    await page.waitForLoadState('load');
    const password = signUpForm().getByLabel('Password');
    expect(await page.locator('#signup-password-hint').textContent()).toContain(`At least ${MIN_PASSWORD_LENGTH} characters`);
    expect(await password.getAttribute('aria-describedby')).toBe('signup-password-hint');
    const posts: string[] = [];
    const onRequest = (request: Request) => request.method() === 'POST' && posts.push(request.url());
    page.on('request', onRequest);
    await signUpForm().getByLabel('Email').fill(EMAIL);
    await password.fill('x'.repeat(MIN_PASSWORD_LENGTH - 1));
    await password.press('Enter');
    await expect.poll(() => password.evaluate((el) => (el as HTMLInputElement).validity.tooShort)).toBe(true);
    // The refusal is the browser's, before anything is sent: still the page, no post made.
    expect(await password.evaluate((el) => (el as HTMLInputElement).validationMessage)).toMatch(new RegExp(`${MIN_PASSWORD_LENGTH}`));
    page.off('request', onRequest);
    expect(posts).toEqual([]);
    expect(page.url()).toBe(`${server.base}/account`);
  });

  it('signs up by pressing Enter in the sign-up form and lands on the account page', async () => {
    await signUpForm().getByLabel('Password').fill(PASSWORD);
    await signUpForm().getByLabel('Password').press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Log out' }).count()).toBe(1);
    expect(await page.textContent('body')).toContain(EMAIL);
    expect(await page.textContent('body')).toContain('0 of 1,000 conversions');
    const cookie = (await sessionCookie())!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/', secure: false });
    secrets.add(cookie.value);
  });

  it('shows an unused quota as a visibly empty bar with a border, and speaks to the user, not the operator', async () => {
    // Styles and layout are read once the page has loaded: its stylesheet may still be on its way
    // when the page's text is already there.
    await page.waitForLoadState('load');
    expect(await page.textContent('#usage')).toMatch(/^0 of 1,000 conversions used this month/);
    const bar = page.locator('progress');
    expect(
      await bar.evaluate((el) => [
        (el as HTMLProgressElement).value,
        getComputedStyle(el).borderTopWidth,
        getComputedStyle(el).borderTopStyle,
      ]),
    ).toEqual([0, '1px', 'solid']);
    expect((await bar.boundingBox())!.height).toBeGreaterThanOrEqual(14);
    expect(await page.textContent('body')).not.toMatch(/admin |--email|--plan|npm run/);
    await page.screenshot({ path: '/tmp/account-empty.png', fullPage: true });
  });

  it('creates a test key, shown once with a warning, that converts; a reload never shows it again', async () => {
    expect(await page.getByRole('radio', { name: /test \(msr_test_/ }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    firstKey = await shownKey();
    secrets.add(firstKey);
    expect(firstKey).toMatch(/^msr_test_/);
    expect(await page.textContent('body')).toContain('shown only this once');
    expect(page.url()).toBe(`${server.base}/account`);
    // The copy button appears only when its script ran under the CSP.
    await expect.poll(() => page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    expect(await convert(firstKey)).toBe(200);
    await page.reload();
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(firstKey);
    expect(await page.textContent('body')).toContain('1 of 1,000 conversions');
  });

  it("puts Rotate and Revoke on one line beside the key's status", async () => {
    await page.waitForLoadState('load');
    const rotate = (await page.getByRole('button', { name: 'Rotate' }).boundingBox())!;
    const revoke = (await page.getByRole('button', { name: 'Revoke' }).boundingBox())!;
    expect(Math.abs(rotate.y - revoke.y)).toBeLessThan(2);
    expect(revoke.x).toBeGreaterThan(rotate.x + rotate.width);
    await page.screenshot({ path: '/tmp/account-keys.png', fullPage: true });
  });

  it('rotates "Now" on the confirmation step: the old key is refused at once and the new one converts', async () => {
    const onRequest = (request: Request) => {
      if (request.method() === 'POST') rotateRequest = { url: request.url(), body: request.postData() ?? '' };
    };
    page.on('request', onRequest);
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.getByRole('radio', { name: /^Now/ }).check();
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.locator('#new-key').waitFor();
    page.off('request', onRequest);
    rotatedKey = await shownKey();
    secrets.add(rotatedKey);
    expect(rotatedKey).not.toBe(firstKey);
    expect(await convert(firstKey)).toBe(401);
    expect(await convert(rotatedKey)).toBe(200);
    expect(rotateRequest?.url).toMatch(/\/account\/keys\/key_\w+\/rotate$/);
  });

  it('a replay of the rotate request with a foreign Origin is 403 and changes nothing', async () => {
    const cookie = (await sessionCookie())!;
    const rows = await page.locator('tbody tr').count();
    const current = (await page.locator('form[action$="/rotate"]').getAttribute('action'))!;
    for (const url of [rotateRequest!.url, `${server.base}${current}`]) {
      const replay = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          origin: 'https://evil.example',
          cookie: `msr_session=${cookie.value}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: rotateRequest!.body,
      });
      expect(replay.status).toBe(403);
    }
    expect(await convert(rotatedKey)).toBe(200);
    await page.reload();
    expect(await page.locator('tbody tr').count()).toBe(rows);
  });

  it('revokes after a confirmation step', async () => {
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Revoke key/ }).count()).toBe(1);
    expect(await convert(rotatedKey)).toBe(200);
    await page.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Create key' }).count()).toBe(1);
    expect(await convert(rotatedKey)).toBe(401);
    expect(await page.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
  });

  it('logs out (the session ends on the server) and logs in again with a new session', async () => {
    const before = (await sessionCookie())!.value;
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Log in' }).count()).toBe(1);
    expect(await sessionCookie()).toBeUndefined();
    const replay = await fetch(`${server.base}/account`, { headers: { cookie: `msr_session=${before}` } });
    expect(await replay.text()).toContain('>Log in</button>');
    await logInForm().getByLabel('Email').fill(EMAIL.toUpperCase());
    await logInForm().getByLabel('Password').fill(PASSWORD);
    await logInForm().getByLabel('Password').press('Enter');
    await expect.poll(() => page.getByRole('button', { name: 'Log out' }).count()).toBe(1);
    const after = (await sessionCookie())!;
    expect(after.value).not.toBe(before);
    secrets.add(after.value);
  });

  it('the page broke no CSP rule and everything it asked for loaded (its icon: no 404 for /favicon.ico)', async () => {
    expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
    expect(consoleErrors).toEqual([]);
    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    const answer = await fetch(new URL(icon!, server.base));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('the password, session tokens and keys are nowhere in the data directory or the logs', () => {
    expect(secrets.size).toBeGreaterThanOrEqual(5);
    const haystacks = { logs: server.logs(), ...filesUnder(dataDir) };
    expect(server.logs()).toContain('"path":"/account/login"');
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of secrets) expect({ where, found: text.includes(secret) }).toEqual({ where, found: false });
    }
  });
});

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const file = path.join(dir, name);
    if (statSync(file).isFile()) out[file] = readFileSync(file).toString('latin1');
  }
  return out;
}
