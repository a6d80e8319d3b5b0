import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingJwk } from '../../src/services/oauth';
import { hashPassword } from '../../src/domain/passwords';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontListenerOf } from '../helpers/http';
import { agentDocuments, callConvertTool, closeServer, CookieJar, freePort, loopbackCertificate, pkce } from '../helpers/oauth-agent';
import { tableRates } from '../helpers/table-rates';

/**
 * The agents' OAuth flow against a started server, driven with fetch as a browser and an agent
 * would: the agent's Client ID Metadata Document on https loopback, authorize, sign in, consent,
 * code, token, `tools/call convert` on /mcp charged to the account, refresh, revoke on the account
 * page, then 401. Made-up rates (not ECB data).
 */
const PUBLICATIONS = [{ date: '2024-01-05', rates: { USD: '1.0921', JPY: '158.29' } }];
let now = new Date('2024-01-08T12:00:00Z');
let t: TestApp;
let server: Server;
let issuer: string;
let agent: Awaited<ReturnType<typeof agentDocuments>>;

beforeAll(async () => {
  const tls = loopbackCertificate();
  agent = await agentDocuments(tls);
  const port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  t = await createTestApp(
    { OAUTH_ISSUER: issuer, OAUTH_ACCESS_TOKEN_TTL_SECONDS: '600' },
    { rates: tableRates(PUBLICATIONS), clock: () => now, clientDocumentCa: tls.cert },
  );
  server = createServer(frontListenerOf(t.app));
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
}, 30_000);
afterAll(async () => {
  await closeServer(server);
  await agent.close();
  await t.close();
});

/** One browser: its cookies, following nothing. */
function browser() {
  const jar = new CookieJar();
  const go = async (url: string, init: RequestInit = {}) =>
    jar.take(
      await fetch(new URL(url, issuer), {
        ...init,
        redirect: 'manual',
        headers: { accept: 'text/html', cookie: jar.header(), ...(init.headers as Record<string, string>) },
      }),
    );
  const form = (url: string, fields: Record<string, string>) =>
    go(url, {
      method: 'POST',
      headers: { origin: issuer, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  return { jar, go, form };
}

function authorizeUrl(challenge: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: agent.clientId,
    redirect_uri: agent.redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'mcp',
    resource: `${issuer}/mcp`,
    state: 'state-1',
    ...extra,
  });
  return `/oauth/authorize?${query}`;
}

const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)![1]!;

/** Signs up a fresh account in this browser, authorizes the agent, consents, and answers the code. */
async function authorizedCode(email: string, challenge: string) {
  const b = browser();
  // Made by the store (sign-ups are limited per IP), signed in on the page.
  await t.store.createAccount({ email, plan: 'free', passwordHash: await hashPassword('correct horse battery') });
  expect((await b.form('/account/login', { email, password: 'correct horse battery' })).status).toBe(303);
  const start = await b.go(authorizeUrl(challenge));
  expect(start.status).toBe(303);
  const consentAt = start.headers.get('location')!;
  expect(consentAt).toMatch(/\/account\/oauth\/[A-Za-z0-9_-]+$/);
  const consent = await b.go(consentAt);
  const page = await consent.text();
  expect(consent.status).toBe(200);
  expect(page).toContain('Test Agent');
  const allowed = await b.form(consentAt, { csrf: csrfOf(page), decision: 'allow' });
  expect(allowed.status).toBe(303);
  const resumed = await b.go(allowed.headers.get('location')!);
  expect(resumed.status).toBe(303);
  const back = new URL(resumed.headers.get('location')!);
  expect(back.origin + back.pathname).toBe(agent.redirectUri);
  expect(back.searchParams.get('state')).toBe('state-1');
  return { browser: b, code: back.searchParams.get('code')! };
}

async function token(fields: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: agent.clientId, ...fields }).toString(),
  });
  return { status: response.status, body: await response.json() };
}

const codeGrant = (code: string, verifier: string) =>
  token({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: agent.redirectUri });

async function callConvert(accessToken: string) {
  const response = await callConvertTool(issuer, accessToken);
  return {
    status: response.status,
    headers: response.headers,
    body: response.status === 200 ? await response.json() : await response.text(),
  };
}

/** Conversions charged to the account this month. */
async function usedBy(email: string): Promise<number> {
  const account = await t.store.findAccountByEmail(email);
  return (await t.app.services.quota.state(account!)).used;
}

describe('OAuth for agents on /mcp', () => {
  it('publishes the protected resource metadata (RFC 9728) and the authorization server metadata (RFC 8414)', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const response = await fetch(`${issuer}${path}`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: `${issuer}/mcp`,
        authorization_servers: [issuer],
        scopes_supported: ['mcp'],
      });
    }
    const metadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });

  it("signs with an Ed25519 key derived from WEBHOOK_SECRET_KEY, published without its private part, never the library's development keys", async () => {
    const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as { jwks_uri: string };
    const { keys } = (await (await fetch(metadata.jwks_uri)).json()) as { keys: Record<string, string>[] };
    const derived = signingJwk(createHash('sha256').update('any 32 bytes').digest());
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
    // The same seed gives the same key on every instance; another seed another key.
    expect(signingJwk(createHash('sha256').update('any 32 bytes').digest())).toEqual(derived);
    expect(signingJwk(createHash('sha256').update('other').digest()).x).not.toBe(derived.x);
    expect(Object.keys(derived).sort()).toEqual(['alg', 'crv', 'd', 'kid', 'kty', 'use', 'x']);
  });

  it('answers a 401 on /mcp with the resource metadata in WWW-Authenticate, with no credential or a bad one', async () => {
    for (const authorization of [undefined, 'Bearer not-a-token', 'Bearer msr_test_nonsense']) {
      const response = await fetch(`${issuer}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(authorization ? { authorization } : {}),
        },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain(`resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp"`);
    }
  });

  it('runs authorize, sign-in, consent, code, token, then tools/call convert charged to the account; revoked on the account page, the next call is 401', async () => {
    const { verifier, challenge } = pkce();
    const email = 'flow@example.test';
    const { browser: b, code } = await authorizedCode(email, challenge);
    const granted = await codeGrant(code, verifier);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ token_type: 'Bearer', scope: 'mcp', expires_in: 600 });
    expect(granted.body.refresh_token).toEqual(expect.any(String));

    const before = await usedBy(email);
    const called = await callConvert(granted.body.access_token);
    expect(called.status).toBe(200);
    expect(called.body.result.isError).toBeFalsy();
    expect(JSON.stringify(called.body.result.structuredContent)).toContain('30.48');
    expect(await usedBy(email)).toBe(before + 1);

    // The token is for /mcp only.
    for (const path of ['/v1/convert?value=1&from=m&to=ft']) {
      const response = await fetch(`${issuer}${path}`, { headers: { authorization: `Bearer ${granted.body.access_token}` } });
      expect(response.status).toBe(401);
    }
    const graphql = await fetch(`${issuer}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${granted.body.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ convert(value: "1", from: "m", to: "ft") { result { value } } }' }),
    });
    expect(JSON.stringify(await graphql.json())).toContain('UNAUTHORIZED');
    expect(await usedBy(email)).toBe(before + 1);

    // Refresh tokens rotate: each use answers a new one.
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: granted.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(granted.body.refresh_token);
    const token2 = refreshed.body.access_token as string;
    expect((await callConvert(token2)).status).toBe(200);

    // Connected agents on the account page; revoking there refuses the next call at once.
    const accountPage = await (await b.go('/account')).text();
    expect(accountPage).toContain('Connected agents');
    expect(accountPage).toContain('Test Agent');
    const revokeAt = /action="(\/account\/agents\/[0-9a-f]{64}\/revoke)"/.exec(accountPage)![1]!;
    expect((await b.form(revokeAt, { csrf: csrfOf(accountPage) })).status).toBe(303);
    const after = await usedBy(email);
    const refused = await callConvert(token2);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(await usedBy(email)).toBe(after);
    expect(await (await b.go('/account')).text()).toContain('No agents connected.');
  });

  it('refuses a replayed refresh token with invalid_grant and revokes its grant', async () => {
    const { verifier, challenge } = pkce();
    const { code } = await authorizedCode('replay@example.test', challenge);
    const granted = await codeGrant(code, verifier);
    const rotated = await token({ grant_type: 'refresh_token', refresh_token: granted.body.refresh_token });
    expect(rotated.status).toBe(200);
    const replayed = await token({ grant_type: 'refresh_token', refresh_token: granted.body.refresh_token });
    expect(replayed).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await callConvert(rotated.body.access_token)).status).toBe(401);
  });
});

/** Bad input at each step: refused with the OAuth error the RFCs name, nothing granted, nothing charged. */
describe('OAuth bad input', () => {
  const codeCases: { name: string; use: (code: string, verifier: string) => Promise<{ status: number; body: any }> }[] = [
    { name: 'a wrong code_verifier', use: (code) => codeGrant(code, pkce().verifier) },
    {
      name: 'a reused code',
      use: async (code, verifier) => {
        expect((await codeGrant(code, verifier)).status).toBe(200);
        return codeGrant(code, verifier);
      },
    },
    {
      name: 'a redirect_uri other than the one authorized',
      use: (code, verifier) =>
        token({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: `${agent.base}/elsewhere` }),
    },
    {
      name: 'a token asked for another resource',
      use: (code, verifier) =>
        token({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: agent.redirectUri,
          resource: 'https://other.example/mcp',
        }),
    },
  ];
  it.each(codeCases)('refuses $name at the token endpoint, charging nothing', async ({ use }) => {
    const { verifier, challenge } = pkce();
    const email = `code-${Math.random().toString(36).slice(2)}@example.test`;
    const { code } = await authorizedCode(email, challenge);
    const refused = await use(code, verifier);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(['invalid_grant', 'invalid_target']).toContain(refused.body.error);
    expect(await usedBy(email)).toBe(0);
  });

  const authorizeCases: { name: string; query: Record<string, string>; error: string }[] = [
    {
      name: 'a redirect_uri not in the client document',
      query: { redirect_uri: 'https://attacker.example/cb' },
      error: 'invalid_redirect_uri',
    },
    { name: 'PKCE with the plain method', query: { code_challenge_method: 'plain' }, error: 'invalid_request' },
    { name: 'no PKCE at all', query: { code_challenge: '', code_challenge_method: '' }, error: 'invalid_request' },
    { name: 'a client document over 5 KiB', query: { client_id: '/big.json' }, error: 'invalid_client' },
    { name: 'a client document slower than 2.5 s', query: { client_id: '/slow.json' }, error: 'invalid_client' },
    { name: 'a client document naming another client_id', query: { client_id: '/other-id.json' }, error: 'invalid_client' },
    { name: 'an http:// client_id', query: { client_id: 'http://127.0.0.1:9/client.json' }, error: 'invalid_client' },
  ];
  it.each(authorizeCases)(
    'refuses $name at the authorization endpoint, without a code',
    async ({ query, error }) => {
      const fixed = Object.fromEntries(
        Object.entries(query).map(([name, value]) => [
          name,
          name === 'client_id' && value.startsWith('/') ? `${agent.base}${value}` : value,
        ]),
      );
      const b = browser();
      const answer = await b.go(authorizeUrl(pkce().challenge, fixed));
      const location = answer.headers.get('location');
      if (location === null) {
        expect(answer.status).toBe(400);
        expect(await answer.text()).toContain(error);
      } else {
        // Errors that may safely go back to the client's own redirect_uri go there, as RFC 6749 4.1.2.1 says.
        const back = new URL(location, issuer);
        expect(back.origin + back.pathname).toBe(agent.redirectUri);
        expect(back.searchParams.get('error')).toBe(error);
        expect(back.searchParams.has('code')).toBe(false);
      }
    },
    15_000,
  );

  it('refuses an authorization for another resource with invalid_target', async () => {
    const b = browser();
    const answer = await b.go(authorizeUrl(pkce().challenge, { resource: 'https://other.example/mcp' }));
    const back = new URL(answer.headers.get('location')!, issuer);
    expect(back.searchParams.get('error')).toBe('invalid_target');
  });

  it('refuses an expired token and a token revoked at the revocation endpoint (RFC 7009), charging nothing', async () => {
    for (const end of ['expired', 'revoked'] as const) {
      const { verifier, challenge } = pkce();
      const email = `${end}@example.test`;
      const { code } = await authorizedCode(email, challenge);
      const granted = await codeGrant(code, verifier);
      expect((await callConvert(granted.body.access_token)).status).toBe(200);
      const used = await usedBy(email);
      const started = now;
      if (end === 'expired') now = new Date(now.getTime() + 601_000);
      else {
        const revoked = await fetch(`${issuer}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ client_id: agent.clientId, token: granted.body.access_token }).toString(),
        });
        expect(revoked.status).toBe(200);
      }
      const refused = await callConvert(granted.body.access_token);
      now = started;
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await usedBy(email)).toBe(used);
    }
  });
});
