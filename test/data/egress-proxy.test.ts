import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clientDocumentFetch } from '../../src/data/client-documents';
import { postWebhook, type PostOptions } from '../../src/data/webhook-http';
import { parseNoProxy, type EgressProxy } from '../../src/domain/egress-proxy';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy';
import { agentDocuments, closeServer, loopbackCertificate } from '../helpers/oauth-agent';
import { historyZip, serve, startFakeEcb, tempRates, type FakeEcb, type TempRates } from './rates/helpers';

/**
 * Every outbound request goes through the forward proxy of HTTPS_PROXY / HTTP_PROXY unless
 * NO_PROXY names its host: the rates fetch, webhook deliveries and OAuth client metadata documents.
 * The webhook and document requests keep their address rules through the proxy: the host is
 * resolved and checked here, and the proxy is asked to CONNECT to the checked address, never to
 * the name. The proxy (test/helpers/forward-proxy.ts) records what it was asked and resolves
 * nothing itself: a made-up host only it can reach stands for "reachable only through the proxy".
 */
const HOOKS = 'hooks.example';
const WEBHOOK_HEADERS = { 'webhook-id': 'msg_1' };
const BODY = JSON.stringify({ type: 'test' });

let tls: { key: string; cert: string };
let receiver: { server: Server; port: number; seen: { host?: string; servername: string | false | null }[] };
let proxy: ForwardProxy;
/** Where the proxy's tunnels go: the receiver's port, asked for by its loopback address or by the public stand-in below. */
const PUBLIC_STAND_IN = '8.8.8.8';

beforeAll(async () => {
  tls = loopbackCertificate([HOOKS, 'docs.example']);
  const seen: { host?: string; servername: string | false | null }[] = [];
  const server = createServer(tls, (req, res) => {
    seen.push({ host: req.headers.host, servername: (req.socket as TLSSocket).servername });
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = { server, port: (server.address() as AddressInfo).port, seen };
});
afterAll(() => closeServer(receiver.server));

beforeEach(async () => {
  receiver.seen.length = 0;
  proxy = await startForwardProxy((host, port) =>
    (host === '127.0.0.1' || host === PUBLIC_STAND_IN) && (port === receiver.port || port === 443) ? receiver.port : undefined,
  );
});
afterEach(() => proxy.close());

const through = (noProxy = ''): EgressProxy => ({ httpsProxy: proxy.url, httpProxy: undefined, noProxy: parseNoProxy(noProxy) });
const hooksAt =
  (...addresses: string[]) =>
  async (host: string) =>
    host === HOOKS ? addresses : [];
const post = (url: string, options: Partial<PostOptions>) =>
  postWebhook(url, WEBHOOK_HEADERS, BODY, {
    policy: webhookUrlPolicy('development'),
    egress: through(),
    timeoutMs: 5_000,
    ca: tls.cert,
    ...options,
  });

describe('webhook deliveries through HTTPS_PROXY', () => {
  it('CONNECT the checked address, with the host name for TLS and Host', async () => {
    const outcome = await post(`https://${HOOKS}:${receiver.port}/hook`, { resolveHost: hooksAt('127.0.0.1') });
    expect(outcome).toEqual({ status: 204 });
    expect(proxy.asked).toEqual([`CONNECT 127.0.0.1:${receiver.port}`]);
    expect(receiver.seen).toEqual([{ host: `${HOOKS}:${receiver.port}`, servername: HOOKS }]);
  });

  it('reach a public address in production through a proxy on a private one (the proxy is not the target)', async () => {
    const outcome = await post(`https://${HOOKS}/hook`, { policy: webhookUrlPolicy('production'), resolveHost: hooksAt(PUBLIC_STAND_IN) });
    expect(outcome).toEqual({ status: 204 });
    expect(proxy.asked).toEqual([`CONNECT ${PUBLIC_STAND_IN}:443`]);
    expect(receiver.seen).toEqual([{ host: HOOKS, servername: HOOKS }]);
  });

  it.each([
    ['a private address', ['10.0.0.7']],
    ['a public and a loopback address (rebinding)', [PUBLIC_STAND_IN, '127.0.0.1']],
  ])('in production, refuse a host that resolves to %s before the proxy is asked anything', async (_what, addresses) => {
    const outcome = await post(`https://${HOOKS}/hook`, { policy: webhookUrlPolicy('production'), resolveHost: hooksAt(...addresses) });
    expect(outcome).toEqual({ status: null, error: `refused: ${HOOKS} resolves to a non-public address` });
    for (const address of addresses) expect(outcome.error).not.toContain(address);
    expect(proxy.asked).toEqual([]);
  });

  it('go directly to a host NO_PROXY names, and through the proxy to any other', async () => {
    const egress = through(`other.example, 127.0.0.1:${receiver.port}`);
    expect(await post(`https://127.0.0.1:${receiver.port}/hook`, { egress })).toEqual({ status: 204 });
    expect(proxy.asked).toEqual([]);
    expect(await post(`https://${HOOKS}:${receiver.port}/hook`, { egress, resolveHost: hooksAt('127.0.0.1') })).toEqual({ status: 204 });
    expect(proxy.asked).toEqual([`CONNECT 127.0.0.1:${receiver.port}`]);
  });

  it("send the proxy URL's user and password as Proxy-Authorization", async () => {
    const egress = { ...through(), httpsProxy: proxy.url.replace('//', '//agent:p%40ss@') };
    expect(await post(`https://${HOOKS}:${receiver.port}/hook`, { egress, resolveHost: hooksAt('127.0.0.1') })).toEqual({ status: 204 });
    expect(proxy.authorizations).toEqual([`Basic ${Buffer.from('agent:p@ss').toString('base64')}`]);
  });

  it('say so when the proxy refuses the tunnel, and send it no part of the request', async () => {
    const outcome = await post(`https://${HOOKS}:${receiver.port}/hook`, { resolveHost: hooksAt('192.0.2.1') });
    expect(outcome).toEqual({ status: null, error: 'the proxy answered HTTP 502 to CONNECT' });
    expect(receiver.seen).toEqual([]);
  });
});

describe('client metadata documents through HTTPS_PROXY', () => {
  let documents: Awaited<ReturnType<typeof agentDocuments>>;
  beforeAll(async () => {
    documents = await agentDocuments(tls);
  });
  afterAll(() => documents.close());
  const documentsProxy = () =>
    startForwardProxy((host, port) => (host === '127.0.0.1' && String(port) === new URL(documents.base).port ? Number(port) : undefined));

  it('are fetched through a CONNECT to the checked address', async () => {
    const documentProxy = await documentsProxy();
    try {
      const fetchDocument = clientDocumentFetch({
        policy: webhookUrlPolicy('development'),
        egress: { httpsProxy: documentProxy.url, httpProxy: undefined, noProxy: [] },
        timeoutMs: 2_000,
        maxBytes: 10_240,
        ca: tls.cert,
        resolveHost: async (host) => (host === 'docs.example' ? ['127.0.0.1'] : []),
      });
      const response = await fetchDocument(documents.clientId.replace('127.0.0.1', 'docs.example'), {});
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ client_name: 'Test Agent' });
      expect(documentProxy.asked).toEqual([`CONNECT 127.0.0.1:${new URL(documents.base).port}`]);
    } finally {
      await documentProxy.close();
    }
  });

  it('in production, are refused for a host that resolves to a private address before the proxy is asked', async () => {
    const documentProxy = await documentsProxy();
    try {
      const fetchDocument = clientDocumentFetch({
        policy: webhookUrlPolicy('production'),
        egress: { httpsProxy: documentProxy.url, httpProxy: undefined, noProxy: [] },
        timeoutMs: 2_000,
        maxBytes: 10_240,
        ca: tls.cert,
        resolveHost: async () => ['169.254.169.254'],
      });
      await expect(fetchDocument('https://docs.example/client.json', {})).rejects.toThrow(
        'refused: docs.example resolves to a non-public address',
      );
      expect(documentProxy.asked).toEqual([]);
    } finally {
      await documentProxy.close();
    }
  });
});

describe('the rates fetch through the proxy', () => {
  let ecb: FakeEcb;
  let t: TempRates | undefined;
  beforeAll(async () => {
    ecb = await startFakeEcb();
    ecb.route('eurofxref-hist.zip', serve(historyZip(), { type: 'application/zip' }));
  });
  afterAll(() => ecb.close());
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });
  const ecbPort = () => Number(new URL(ecb.url).port);
  const ratesProxy = (target: number) => startForwardProxy((host) => (host === 'ecb.internal' ? target : undefined));

  it('reaches an http:// ECB that only the proxy can resolve through HTTP_PROXY, and goes directly to a host NO_PROXY names', async () => {
    const ratesVia = await ratesProxy(ecbPort());
    try {
      t = tempRates({ ECB_BASE_URL: 'http://ecb.internal/stats/eurofxref', HTTP_PROXY: ratesVia.url });
      const report = await t.service({ fetch: undefined }).refresh();
      expect(report).toMatchObject({ file: 'http://ecb.internal/stats/eurofxref/eurofxref-hist.zip', added: 3 });
      expect(ratesVia.asked).toEqual([
        expect.stringMatching(/^(CONNECT ecb\.internal:80|GET http:\/\/ecb\.internal\/stats\/eurofxref\/eurofxref-hist\.zip)$/),
      ]);
      await t.cleanup();
      t = tempRates({ ECB_BASE_URL: ecb.url, HTTP_PROXY: ratesVia.url, NO_PROXY: 'ecb.internal,127.0.0.1' });
      expect(await t.service({ fetch: undefined }).refresh()).toMatchObject({ added: 3 });
      expect(ratesVia.asked).toHaveLength(1);
    } finally {
      await ratesVia.close();
    }
  });

  it('asks HTTPS_PROXY (lower case too) for a tunnel to an https:// ECB by its name', async () => {
    const ratesVia = await ratesProxy(ecbPort());
    try {
      t = tempRates({ ECB_BASE_URL: 'https://ecb.internal/stats/eurofxref', https_proxy: ratesVia.url });
      // The tunnel reaches the plain-HTTP stand-in, so TLS fails after the proxy was asked: the route is what is checked.
      await expect(t.service({ fetch: undefined, tuning: { tries: 1 } }).refresh()).rejects.toThrow(/ecb\.internal/);
      expect(ratesVia.asked.length).toBeGreaterThan(0);
      expect(new Set(ratesVia.asked)).toEqual(new Set(['CONNECT ecb.internal:443']));
    } finally {
      await ratesVia.close();
    }
  });
});
