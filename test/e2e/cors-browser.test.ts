import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { browserAvailable, launchChromium } from '../helpers/browser';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/**
 * Public data from a page of another origin, in a real Chromium: a page served on another port
 * lists the currencies and the units with plain fetch and asks GraphQL without a key; the same
 * page's fetch with an Authorization header fails its preflight, so the key never reaches the API
 * (the key's quota stays untouched).
 */
const run = browserAvailable();

/** The page: each list, once fetched, written into its element; each failure written as `failed: ...`. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>Rates from elsewhere</title>
<ul id="currencies"></ul><ul id="units"></ul><p id="graphql"></p><p id="keyed"></p>
<script>
const api = new URLSearchParams(location.search).get('api');
const list = (id, items) => { document.getElementById(id).innerHTML = items.map((text) => '<li>' + text + '</li>').join(''); document.getElementById(id).dataset.done = 'yes'; };
const say = (id, text) => { const el = document.getElementById(id); el.textContent = text; el.dataset.done = 'yes'; };
fetch(api + '/v1/currencies').then((r) => r.json()).then((b) => list('currencies', b.data.map((c) => c.code)), (e) => say('currencies', 'failed: ' + e));
fetch(api + '/v1/units?category=length', { headers: { 'If-None-Match': '"none"' } })
  .then((r) => r.json()).then((b) => list('units', b.data.map((u) => u.id)), (e) => say('units', 'failed: ' + e));
fetch(api + '/graphql', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ unit(id: "ft") { name } }' }) })
  .then((r) => r.json()).then((b) => say('graphql', b.data.unit.name), (e) => say('graphql', 'failed: ' + e));
fetch(api + '/v1/convert?value=1&from=m&to=ft', { headers: { Authorization: 'Bearer ' + new URLSearchParams(location.search).get('key') } })
  .then((r) => say('keyed', 'answered ' + r.status), (e) => say('keyed', 'failed: ' + e.name));
</script>`;

let t: TestApp;
let key: string;
let pages: Server;
let pageOrigin: string;
let browser: Browser;
let page: Page;
const consoleLines: string[] = [];

/** An element's text once the page's script marked it done: read only after it is there. */
async function doneText(id: string): Promise<string> {
  const element = page.locator(`#${id}[data-done="yes"]`);
  await element.waitFor({ state: 'attached' });
  return (await element.textContent()) ?? '';
}

describe.skipIf(!run)('public data from a page on another origin, in Chromium', () => {
  beforeAll(async () => {
    t = await createTestApp({}, { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') });
    key = await t.createKey('free');
    pages = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
    await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
    browser = await launchChromium();
    const context = await browser.newContext();
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    page.on('console', (message) => consoleLines.push(message.text()));
    await page.goto(`${pageOrigin}/?api=${encodeURIComponent(t.origin)}&key=${encodeURIComponent(key)}`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => pages?.close(resolve));
    await t?.close();
  });

  it('is served from another origin than the API', () => {
    expect(new URL(pageOrigin).origin).not.toBe(new URL(t.origin).origin);
  });

  it('lists the currencies', async () => {
    expect(await doneText('currencies')).not.toMatch(/^failed/);
    expect(await page.locator('#currencies li').allTextContents()).toEqual(expect.arrayContaining(['EUR', 'USD', 'JPY']));
  });

  it('lists the units of a category, with a validator header that needs a preflight', async () => {
    expect(await doneText('units')).not.toMatch(/^failed/);
    expect(await page.locator('#units li').allTextContents()).toEqual(expect.arrayContaining(['meter', 'foot', 'mile']));
  });

  it('asks GraphQL with a JSON POST and no key', async () => {
    expect(await doneText('graphql')).toBe('foot');
  });

  it('cannot send a key: the fetch with Authorization fails, and the API never ran it', async () => {
    expect(await doneText('keyed')).toBe('failed: TypeError');
    expect(consoleLines.join('\n')).toMatch(/Authorization is not allowed by Access-Control-Allow-Headers|CORS policy/);
    const usage = await t.call('GET', '/v1/usage', { key });
    expect(usage.body.data.quota.used).toBe(0);
  });
});
