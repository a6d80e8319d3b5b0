import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { browserAvailable, launchChromium } from '../helpers/browser';

/** Where the screenshots go: a temporary directory, or with UPDATE_SCREENSHOT=1 docs/, beside the pages that show them. */
const DOCS = process.env.UPDATE_SCREENSHOT
  ? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs')
  : mkdtempSync(path.join(os.tmpdir(), 'front-door-shots-'));
const run = browserAvailable();

let t: TestApp;
let base: string;
let browser: Browser;

/** A page whose every request to anywhere but the server is aborted and recorded, with its CSP violations and errors. */
async function offlinePage(): Promise<{ page: Page; outside: string[]; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const outside: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${base}/`)) return route.continue();
    outside.push(url);
    return route.abort('blockedbyclient');
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text()))
      problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return { page, outside, problems };
}

describe.skipIf(!run)('the front door in a real browser (Chromium), with every other host blocked', () => {
  beforeAll(async () => {
    t = await createTestApp();
    base = t.origin;
    browser = await launchChromium();
    mkdirSync(DOCS, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('/docs renders the reference of /openapi.json: its title, its tags, a route and its answer, no request leaving the server, no CSP violation', async () => {
    const { page, outside, problems } = await offlinePage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    expect((await page.goto(`${base}/docs`))!.status()).toBe(200);
    await expect
      .poll(
        () =>
          page
            .locator('.api-info h1')
            .innerText()
            .catch(() => ''),
        { timeout: 20_000 },
      )
      .toContain('Measurement API');
    await expect.poll(() => page.getByText('List the 15 measurement categories').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    for (const tag of ['Units', 'Conversion', 'Currency', 'Service'])
      expect(await page.locator('[role="menuitem"], label').getByText(tag, { exact: true }).count()).toBeGreaterThan(0);
    // One operation as a reader finds it: its heading, its path, its 200 answer's sample.
    const heading = page.getByRole('heading', {
      name: "Convert between currencies at one official publisher's figures (the ECB's when it quotes both, or source)",
    });
    await heading.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await expect.poll(() => page.getByText('/v1/currency/convert', { exact: true }).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.waitForTimeout(500);
    await page.screenshot({ path: path.join(DOCS, 'reference-screenshot.png') });
    expect(requests).toContain('/openapi.json');
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('/ shows what this is and links to GraphiQL, the reference, the account page and the OpenAPI document, each of which opens', async () => {
    const { page, outside, problems } = await offlinePage();
    expect((await page.goto(`${base}/`))!.status()).toBe(200);
    await expect(page.locator('h1').innerText()).resolves.toContain('Measurement API');
    await page.screenshot({ path: path.join(DOCS, 'home-screenshot.png'), fullPage: true });
    for (const [name, target] of [
      ['GraphiQL', '/graphql'],
      ['API reference', '/docs'],
      ['Your account', '/account'],
      ['OpenAPI document', '/openapi.json'],
    ] as const) {
      const link = page.getByRole('link', { name, exact: true });
      expect(await link.getAttribute('href')).toBe(target);
      const answer = await page.request.get(`${base}${target}`, { headers: { accept: 'text/html' } });
      expect(answer.status()).toBe(200);
    }
    // Its stylesheet applied (no CSP refusal): the links are laid out as a grid.
    expect(await page.locator('ul.doors').evaluate((list) => getComputedStyle(list).display)).toBe('grid');
    expect(outside).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 60_000);
});
