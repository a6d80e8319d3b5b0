import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { openStore } from '../../src/data/open-store';
import { hashPassword } from '../../src/domain/passwords';
import { currentDay, currentMonth, lastDays } from '../../src/domain/quota';
import { browserAvailable, launchChromium, startServer, type RunningServer } from '../helpers/browser';

/**
 * The key lifecycle on the account page in a real Chromium against the real server process:
 * a webhook endpoint on a local receiver, a key with an expiry, the usage chart, rotation with a
 * grace on its confirmation step. The account's earlier days are written into the database before
 * the server starts (a month with a quota that ran out, this month at 797 of 1,000), today's come
 * from real requests, which cross 80 % of the quota: the receiver gets a signed quota.threshold.
 * Screenshots go to a temporary directory, or with UPDATE_SCREENSHOT=1 to docs/ (account-page,
 * account-keys, account-usage, account-rotate, account-webhooks).
 */
const EMAIL = 'lifecycle@example.com';
const PASSWORD = 'a passphrase nobody guesses';
const SHOTS = process.env.UPDATE_SCREENSHOT ? 'docs' : mkdtempSync(path.join(os.tmpdir(), 'account-shots-'));

const run = browserAvailable();
let server: RunningServer;
let browser: Browser;
let page: Page;
let dataDir: string;
let receiver: Server;
const received: { headers: Record<string, string>; body: string }[] = [];
const consoleErrors: string[] = [];

const convert = (key: string) => fetch(`${server.base}/v1/convert?value=1&from=m&to=ft`, { headers: { authorization: `Bearer ${key}` } });
const shownKeys: string[] = [];
const shownKey = async () => {
  const key = (await page.locator('#new-key').textContent())!.trim();
  shownKeys.push(key);
  return key;
};
const shot = (name: string) => path.join(SHOTS, name);

/** The account, and its 29 days before today: weekdays busier than weekends, the quota running out near a month's end. */
async function seedAccount(dir: string): Promise<void> {
  const store = openStore(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }));
  try {
    const account = await store.createAccount({ email: EMAIL, plan: 'free', passwordHash: await hashPassword(PASSWORD) });
    const days = lastDays(new Date(), 30).slice(0, -1);
    for (const [i, day] of days.entries()) {
      const weekend = [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay());
      const delivered = i === 2 ? 4 : weekend ? 3 + (i % 4) : 14 + ((i * 7) % 13);
      await store.consumeQuotaUpTo(account.id, day.slice(0, 7), 1_000_000, delivered, undefined, undefined, day);
      const refusedQuota = i === 1 ? 9 : i === 2 ? 17 : 0;
      const refusedRate = i % 9 === 5 ? 4 : 0;
      if (refusedQuota + refusedRate > 0)
        await store.recordRefusals([{ accountId: account.id, day, quota: refusedQuota, rate: refusedRate }]);
    }
    // This month's usage just under 80 %, so today's requests cross it (days stay as drawn).
    const month = currentMonth(new Date());
    await store.consumeQuotaUpTo(account.id, month, 1_000_000, 797 - (await store.monthlyUsage(account.id, month)));
  } finally {
    await store.close();
  }
}

/** A local webhook receiver that records what it gets and answers 204. */
async function startReceiver(): Promise<string> {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers as Record<string, string>, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/measurement`;
}

describe.skipIf(!run)('the key lifecycle on the account page in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-lifecycle-'));
    await seedAccount(dataDir);
    hookUrl = await startReceiver();
    server = await startServer({ DATA_DIR: dataDir, KEY_RATE_LIMIT: '3' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    context.setDefaultTimeout(8_000);
    page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.stop();
    receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (SHOTS !== 'docs') rmSync(SHOTS, { recursive: true, force: true });
  });

  let firstKey = '';
  let hookUrl = '';
  let hookSecret = '';

  it('logs in and adds a webhook endpoint: its signing secret is shown once', async () => {
    await page.goto(`${server.base}/account`);
    const logIn = page.getByRole('form', { name: 'Log in' });
    await logIn.getByLabel('Email').fill(EMAIL);
    await logIn.getByLabel('Password').fill(PASSWORD);
    await logIn.getByRole('button', { name: 'Log in' }).click();
    await page.getByLabel('Endpoint URL').fill(hookUrl);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.locator('#new-secret').waitFor();
    hookSecret = (await page.locator('#new-secret').textContent())!.trim();
    expect(hookSecret).toMatch(/^whsec_/);
    expect(await page.locator('#webhooks').textContent()).toContain('no events yet');
  });

  it("creates a key that never expires; today's conversions and rate-limit refusals reach the chart", async () => {
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    firstKey = await shownKey();
    const statuses = await Promise.all(Array.from({ length: 12 }, () => convert(firstKey).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(3);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    const delivered = statuses.filter((s) => s === 200).length;
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator(`g[data-day="${currentDay(new Date())}"] > title`).textContent();
        },
        { timeout: 5_000 },
      )
      .toMatch(new RegExp(`: ${delivered} delivered, 0 refused for the quota, [1-9]\\d* refused for the rate limit$`));
  });

  it('crossing 80 % of the quota sends one signed quota.threshold to the endpoint, listed as delivered', async () => {
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    const [event] = received;
    const payload = new Webhook(hookSecret).verify(event!.body, event!.headers) as {
      type: string;
      data: { threshold: number; limit: number };
    };
    expect(payload).toMatchObject({ type: 'quota.threshold', data: { threshold: 80, limit: 1000 } });
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('#webhooks ul.deliveries').textContent();
        },
        { timeout: 10_000 },
      )
      .toMatch(/quota\.threshold, .* UTC: delivered/);
    await page.locator('#webhooks').screenshot({ path: shot('account-webhooks.png') });
  });

  it('creates a key expiring in 30 days: shown once with its end and the MCP URL, listed with its expiry', async () => {
    await page.getByRole('radio', { name: /In 30 days/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    const end = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(await page.locator('.new-key').textContent()).toContain(`It stops working at ${end}`);
    expect(await page.locator('#mcp-url').textContent()).toBe(`${server.base}/mcp`);
    expect((await convert(await shownKey())).headers.get('key-expires')).toContain('GMT');
    const expiries = await page.locator('td[data-label="Expires"]').allTextContents();
    expect(expiries.map((text) => text.trim())).toEqual(['never', expect.stringMatching(new RegExp(`^${end} \\d\\d:\\d\\d$`))]);
    await page.screenshot({ path: shot('account-page.png'), fullPage: true });
  });

  it("draws the usage chart: 30 days of bars, axis labels and a legend, readable at the page's width", async () => {
    // Its size is read once the page has loaded: the stylesheet may still be on its way.
    await page.waitForLoadState('load');
    const chart = page.locator('svg.usage-chart');
    expect(await chart.locator('g[data-day]').count()).toBe(30);
    const box = (await chart.boundingBox())!;
    expect(box.width).toBeGreaterThan(700);
    expect(box.height).toBeGreaterThan(250);
    expect(await page.locator('.chart-legend li').allTextContents()).toEqual([
      expect.stringMatching(/^Delivered \(\d+\)$/),
      'Refused: quota (26)',
      expect.stringMatching(/^Refused: rate limit \([1-9]\d*\)$/),
    ]);
    expect(await chart.getAttribute('aria-labelledby')).toBe('usage-chart-title usage-chart-desc');
    await page.locator('figure.chart').screenshot({ path: shot('account-usage.png') });
  });

  it('on a phone (390×844) the page does not scroll sideways and the chart fits it, its labels whole and apart', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.reload();
      await page.waitForLoadState('load');
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      const chart = (await page.locator('svg.usage-chart').boundingBox())!;
      expect(chart.x).toBeGreaterThanOrEqual(0);
      expect(chart.x + chart.width).toBeLessThanOrEqual(390);
      const texts = await page.locator('svg.usage-chart text').evaluateAll((nodes) =>
        nodes
          .filter((node) => getComputedStyle(node).display !== 'none')
          .map((node) => {
            const box = node.getBoundingClientRect();
            return {
              text: node.textContent,
              left: box.left,
              right: box.right,
              top: box.top,
              bottom: box.bottom,
              size: getComputedStyle(node).fontSize,
            };
          }),
      );
      // Every tick, the axis' unit and three day labels (every second one on a phone), each at least 12 px and inside the chart.
      const ticks = await page.locator('svg.usage-chart g.tick').count();
      expect(ticks).toBeGreaterThanOrEqual(3);
      expect(texts.length).toBe(ticks + 1 + 3);
      for (const text of texts) {
        expect(parseFloat(text.size), text.text!).toBeGreaterThanOrEqual(12);
        expect(text.left, text.text!).toBeGreaterThanOrEqual(chart.x);
        expect(text.right, text.text!).toBeLessThanOrEqual(chart.x + chart.width);
      }
      for (const [i, a] of texts.entries())
        for (const b of texts.slice(i + 1)) {
          const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
          expect({ a: a.text, b: b.text, apart }).toEqual({ a: a.text, b: b.text, apart: true });
        }
      // The legend wraps within the page.
      for (const item of await page.locator('.chart-legend li').all()) {
        const box = (await item.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      await page.locator('figure.chart').screenshot({ path: shot('account-usage-phone.png') });
    } finally {
      await page.setViewportSize({ width: 1000, height: 900 });
    }
  });

  it('rotates with a grace of 1 hour after a confirmation saying so: both keys work, the old one says when it ends', async () => {
    await page.getByRole('button', { name: 'Rotate' }).first().click();
    await page.getByRole('heading', { name: /^Rotate key/ }).waitFor();
    expect(await page.getByRole('radio').count()).toBe(4);
    const labels = (await page.locator('label').allTextContents()).map((text) => text.trim());
    expect(labels).toEqual([
      'Now: the old key stops at once.',
      expect.stringMatching(/^In 1 hour: the old key keeps working until \d{4}-\d\d-\d\d \d\d:\d\d UTC, then stops\.$/),
      expect.stringMatching(/^In 24 hours: the old key keeps working until .* UTC, then stops\.$/),
      expect.stringMatching(/^In 7 days: the old key keeps working until .* UTC, then stops\.$/),
    ]);
    await page.getByRole('radio', { name: /In 1 hour/ }).check();
    await page.screenshot({ path: shot('account-rotate.png'), fullPage: true });
    await page.getByRole('button', { name: 'Rotate' }).click();
    await page.locator('#new-key').waitFor();
    const fresh = await shownKey();
    expect(fresh).not.toBe(firstKey);
    const old = await convert(firstKey);
    expect(old.status).toBe(200);
    const ends = Date.parse(old.headers.get('key-expires')!);
    expect(Math.abs(ends - (Date.now() + 3_600_000))).toBeLessThan(120_000);
    expect((await convert(fresh)).status).toBe(200);
    expect(await page.locator('td[data-label="Status"]').first().textContent()).toMatch(
      /rotated, replaced by key_\w+; works until it expires/,
    );
    await page
      .locator('table')
      .first()
      .screenshot({ path: shot('account-keys.png') });
  });

  it('the pages broke no CSP rule and loaded everything they asked for', () => {
    expect(consoleErrors).toEqual([]);
  });

  it('the signing secret and the keys shown are nowhere in the data directory or the logs', () => {
    const secrets = [hookSecret, firstKey, ...shownKeys].filter(Boolean);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    const haystacks: Record<string, string> = { logs: server.logs() };
    for (const name of readdirSync(dataDir, { recursive: true }) as string[]) {
      const file = path.join(dataDir, name);
      if (statSync(file).isFile()) haystacks[file] = readFileSync(file).toString('latin1');
    }
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of secrets) expect({ where, found: text.includes(secret) }).toEqual({ where, found: false });
    }
  });
});
