import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, launchChromium, startServer, type RunningServer } from '../helpers/browser';
import { admin } from '../helpers/server-process';

/**
 * GraphiQL at GET /graphql in a real Chromium against the real server process, as a person
 * exploring the API uses it: the page renders offline (nothing asked of another origin), runs its
 * default query of public fields, then a conversion with a key typed into its Headers tab; no
 * console error, no CSP violation, no failed request along the way.
 */
const run = browserAvailable();
let server: RunningServer;
let browser: Browser;
let page: Page;
let dataDir: string;
const consoleErrors: string[] = [];
const foreignRequests: string[] = [];
const failedRequests: string[] = [];

/** The text of the result pane (Monaco lays it out with no-break spaces) once it holds `expected`. */
async function resultContaining(expected: string): Promise<string> {
  const text = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
  await expect.poll(async () => (await text()).includes(expected), { timeout: 15_000 }).toBe(true);
  return text();
}

/**
 * Replaces an editor's whole text. insertText types no keys, but Monaco still closes the brackets
 * it sees opened: whatever it added after the cursor is deleted.
 */
async function replaceEditorText(editor: string, text: string): Promise<void> {
  await page.locator(`${editor} .monaco-editor`).last().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
  await page.keyboard.press('Control+Shift+End');
  await page.keyboard.press('Delete');
}

describe.skipIf(!run)('GraphiQL in Chromium', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-graphiql-'));
    server = await startServer({ DATA_DIR: dataDir });
    browser = await launchChromium();
    page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    page.on('request', (request) => {
      if (!/^(data|blob):/.test(request.url()) && new URL(request.url()).origin !== server.base) foreignRequests.push(request.url());
    });
    page.on('requestfailed', (request) => failedRequests.push(`${request.url()}: ${request.failure()?.errorText}`));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('renders the playground from same-origin assets, with its CSP and the security headers', async () => {
    const response = await page.goto(`${server.base}/graphql`);
    expect(response!.status()).toBe(200);
    const headers = response!.headers();
    expect(headers['content-type']).toMatch(/^text\/html/);
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
    await page.locator('.graphiql-container').first().waitFor();
    await expect.poll(() => page.getByRole('button', { name: /execute/i }).count()).toBe(1);
    expect(await page.title()).toBe('Measurement API');
  });

  it('runs its default query of public fields without a key', async () => {
    await page.getByRole('button', { name: /execute/i }).click();
    const result = await resultContaining('"unitCount"');
    expect(result).toContain('"id": "length"');
    expect(result).toContain('"name": "Length"');
    expect(result).not.toContain('"errors"');
  });

  it('converts exactly with a key given in the Headers tab; without it the answer is UNAUTHORIZED', async () => {
    const { key } = (await admin(['key', 'create', '--plan', 'free'], { DATA_DIR: dataDir })) as { key: string };
    await replaceEditorText('.graphiql-query-editor', '{ convert(value: "12.5", from: "inch", to: "centimeter") { result { value unit } } }');
    await page.getByRole('button', { name: /execute/i }).click();
    expect(await resultContaining('UNAUTHORIZED')).toContain('"errors"');

    await page.getByRole('button', { name: 'Headers' }).click();
    await replaceEditorText('.graphiql-editor-tool', JSON.stringify({ Authorization: `Bearer ${key}` }));
    await page.getByRole('button', { name: /execute/i }).click();
    const result = await resultContaining('"31.75"');
    expect(result).toContain('"unit": "centimeter"');
    expect(result).not.toContain('"errors"');
  });

  it('asked nothing of another origin, logged no error and lost no request', async () => {
    expect(foreignRequests).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(failedRequests).toEqual([]);
  });

  it('kept the key out of the server logs', () => {
    expect(server.logs()).not.toMatch(/msr_test_[A-Za-z0-9]{20,}/);
  });
});
