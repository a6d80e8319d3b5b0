import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/domain/passwords';
import { createTestApp, type TestApp } from '../helpers/app';
import { browserAvailable, launchChromium } from '../helpers/browser';
import { frontListenerOf } from '../helpers/http';
import { agentDocuments, callConvertTool, closeServer, freePort, loopbackCertificate, pkce } from '../helpers/oauth-agent';

/**
 * The agents' OAuth flow in a real Chromium: the agent's Client ID Metadata Document on https
 * loopback, the browser at the authorize URL signs in on the account page, reads the consent step,
 * allows, and lands at the agent's redirect_uri with a code; the token it gives is charged on /mcp
 * to that account; Revoke under Connected agents refuses the next call with 401.
 */
const EMAIL = 'oauth-browser@example.test';
const PASSWORD = 'correct horse battery';
const run = browserAvailable();
let t: TestApp;
let server: Server;
let issuer: string;
let agent: Awaited<ReturnType<typeof agentDocuments>>;
let browser: Browser;
let page: Page;

const callConvert = (accessToken: string) => callConvertTool(issuer, accessToken);

async function usedBy(email: string): Promise<number> {
  const account = await t.store.findAccountByEmail(email);
  return (await t.app.services.quota.state(account!)).used;
}

describe.skipIf(!run)('OAuth for agents in Chromium', () => {
  beforeAll(async () => {
    const tls = loopbackCertificate();
    agent = await agentDocuments(tls);
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    t = await createTestApp({ OAUTH_ISSUER: issuer }, { clientDocumentCa: tls.cert });
    server = createServer(frontListenerOf(t.app));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await t.store.createAccount({ email: EMAIL, plan: 'free', passwordHash: await hashPassword(PASSWORD) });
    browser = await launchChromium();
    // The agent's loopback certificate is the test's own.
    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (server) await closeServer(server);
    await agent?.close();
    await t?.close();
  });

  it('signs in, consents, lands at the redirect_uri with a code whose token is charged on /mcp; Revoke in the page refuses the next call', async () => {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: agent.clientId,
      redirect_uri: agent.redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'mcp',
      resource: `${issuer}/mcp`,
      state: 'browser-state',
    });
    await page.goto(`${issuer}/oauth/authorize?${query}`);
    // The page's log-in form (the sign-up form beside it has its own Email and Password).
    await page.locator('#login-email').fill(EMAIL);
    await page.locator('#login-password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.locator('#client-name').count()).toBe(1);
    expect(await page.textContent('#client-name')).toBe('Test Agent');
    expect(await page.textContent('body')).toContain('call the MCP tools of this API');
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect.poll(() => agent.callbacks.length).toBe(1);
    const back = agent.callbacks[0]!;
    expect(back.searchParams.get('state')).toBe('browser-state');
    const code = back.searchParams.get('code')!;

    const granted = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: agent.clientId,
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: agent.redirectUri,
      }).toString(),
    });
    expect(granted.status).toBe(200);
    const { access_token: accessToken } = (await granted.json()) as { access_token: string };
    const called = await callConvert(accessToken);
    expect(called.status).toBe(200);
    expect(JSON.stringify(await called.json())).toContain('30.48');
    expect(await usedBy(EMAIL)).toBe(1);

    await page.goto(`${issuer}/account`);
    expect(await page.textContent('#agents')).toContain('Test Agent');
    await page.locator('#agents').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.locator('#agents').textContent()).toContain('No agents connected.');
    const refused = await callConvert(accessToken);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain(`resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`);
    expect(await usedBy(EMAIL)).toBe(1);
  }, 90_000);
});
