import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_DEFAULT_QUERY } from '../../src/app';
import { createTestApp, type TestApp } from '../helpers/app';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && !process.env.CI)
  console.warn(`GraphiQL browser tests skipped: ${CHROMIUM} is absent (they fail instead when CI is set).`);

let t: TestApp;
let base: string;
let browser: Browser;

describe.skipIf(!available && !process.env.CI)('GraphiQL in a real browser (Chromium)', () => {
  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is absent: CI needs Debian's chromium for the GraphiQL browser tests.`);
    t = await createTestApp();
    base = t.origin;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-gpu',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('loads with no request leaving the server and no CSP violation, shows the schema in the docs, and runs a typed query', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text()))
        problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    // Violations reported by the page itself, including those the console does not show.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
      );
    });

    const response = await page.goto(`${base}/graphql`);
    expect(response!.status()).toBe(200);

    // The docs explorer lists the schema's root type, which needs the introspection query to have succeeded.
    await page.getByRole('button', { name: 'Show Documentation Explorer' }).click();
    await expect.poll(() => page.getByText('Root Types').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await page.getByText('Query', { exact: true }).first().click();
    await expect.poll(() => page.getByText('convertCurrency', { exact: true }).count(), { timeout: 10_000 }).toBeGreaterThan(0);

    // Type a query of our own into the editor (Monaco closes brackets itself, and typing over them is a no-op).
    const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ unit(id: "yd") { id symbol } }');
    await page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
    await expect.poll(() => page.locator('.result-window').innerText(), { timeout: 15_000 }).toContain('"yard"');

    expect(problems).toEqual([]);
    const outside = requests.filter((url) => !url.startsWith(`${base}/`));
    expect(outside).toEqual([]);
    expect(requests).toContain(`${base}/graphql`);
    await context.close();
  }, 60_000);

  it('runs its default query of public fields, then converts with a key typed into its Headers tab (UNAUTHORIZED without); no request fails', async () => {
    const { key } = await t.createAccountKey();
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => message.type() === 'error' && problems.push(`console: ${message.text()}`));
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
    // Monaco lays the result out with no-break spaces; it renders only the lines in view.
    const result = async () => (await page.locator('.graphiql-response').innerText()).replace(/\u00a0/g, ' ');
    const execute = () => page.getByRole('button', { name: 'Execute query (Ctrl-Enter)' }).click();
    // insertText presses no keys, but Monaco still closes what it sees opened: delete what it added.
    const replaceText = async (editor: string, text: string) => {
      await page.locator(`${editor} .monaco-editor`).last().click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(text);
      await page.keyboard.press('ControlOrMeta+Shift+End');
      await page.keyboard.press('Delete');
    };

    await page.goto(`${base}/graphql`);
    await execute();
    await expect.poll(result, { timeout: 15_000 }).toContain('"unitCount"');
    expect(await result()).toContain('"name": "Length"');

    await replaceText('.graphiql-query-editor', '{ convert(value: "12.5", from: "inch", to: "centimeter") { result { value unit } } }');
    await execute();
    await expect.poll(result, { timeout: 15_000 }).toContain('UNAUTHORIZED');

    await page.getByRole('button', { name: 'Headers' }).click();
    await replaceText('.graphiql-editor-tool', JSON.stringify({ Authorization: `Bearer ${key}` }));
    await execute();
    await expect.poll(result, { timeout: 15_000 }).toContain('"value": "31.75"');
    expect(await result()).toContain('"unit": "centimeter"');
    expect(await result()).not.toContain('"errors"');
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it.each([[1280, 800]])(
    'at %d×%d (a laptop) every line of its starting document is shown whole: none is wider than the editor',
    async (width, height) => {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await page.goto(`${base}/graphql`);
      // Its last line is the empty one after the final newline.
      const lines = GRAPHIQL_DEFAULT_QUERY.split('\n');
      const editor = page.locator('.graphiql-query-editor .monaco-editor').first();
      // Monaco renders only the lines in view, with no-break spaces: all of them are, once it has laid them out.
      const shown = () =>
        editor.locator('.view-line').evaluateAll((nodes) =>
          nodes
            .map((node) => ({ top: node.getBoundingClientRect().top, text: node.textContent!.replace(/\u00a0/g, ' ') }))
            .sort((a, b) => a.top - b.top)
            .map((line) => line.text),
        );
      await expect.poll(shown, { timeout: 15_000 }).toEqual(lines);
      const measured = await editor.evaluate((root) => ({
        viewRight: root.querySelector('.monaco-scrollable-element.editor-scrollable')!.getBoundingClientRect().right,
        widest: Math.max(...[...root.querySelectorAll('.view-line > span')].map((span) => span.getBoundingClientRect().right)),
      }));
      expect(measured.widest).toBeLessThanOrEqual(measured.viewRight);
      await page.screenshot({ path: `/tmp/graphiql-${width}.png` });
      await context.close();
    },
    60_000,
  );

  it('cannot be framed: the browser refuses to show the page inside a frame of another origin', async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => blocked.push(message.text()));
    await page.setContent(`<iframe id="f" src="${base}/graphql"></iframe>`);
    await expect
      .poll(() => blocked.some((text) => /frame-ancestors|X-Frame-Options|refused to (display|connect)/i.test(text)), { timeout: 10_000 })
      .toBe(true);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(await frame?.$('#root').catch(() => null)).toBeFalsy();
    await page.close();
  }, 30_000);
});
