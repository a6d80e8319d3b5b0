import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientDocumentFetch } from '../../src/data/client-documents';
import { NO_EGRESS_PROXY } from '../../src/domain/egress-proxy';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import { agentDocuments, loopbackCertificate } from '../helpers/oauth-agent';

/** OAuth clients' metadata documents are fetched under the webhook URL rules, bounded in size and time. */
let tls: { key: string; cert: string };
let agent: Awaited<ReturnType<typeof agentDocuments>>;
beforeAll(async () => {
  tls = loopbackCertificate();
  agent = await agentDocuments(tls);
});
afterAll(() => agent.close());

describe('client metadata document fetch', () => {
  it('reads a document on loopback in development', async () => {
    const fetchDocument = clientDocumentFetch({
      policy: webhookUrlPolicy('development'),
      egress: NO_EGRESS_PROXY,
      timeoutMs: 2_000,
      maxBytes: 10_240,
      ca: tls.cert,
    });
    const response = await fetchDocument(agent.clientId, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ client_id: agent.clientId, client_name: 'Test Agent' });
  });

  const refusals: {
    name: string;
    url: () => string;
    env: 'development' | 'production';
    maxBytes?: number;
    timeoutMs?: number;
    why: RegExp;
  }[] = [
    { name: 'a private (loopback) address in production', url: () => agent.clientId, env: 'production', why: /not a public address/ },
    {
      name: 'a private address named by a host in production',
      url: () => agent.clientId.replace('127.0.0.1', 'localhost'),
      env: 'production',
      why: /non-public/,
    },
    { name: 'http:// in production', url: () => 'http://203.0.113.9/client.json', env: 'production', why: /only https/ },
    {
      name: 'a document larger than the bound',
      url: () => `${agent.base}/big.json`,
      env: 'development',
      maxBytes: 5_120,
      why: /larger than/,
    },
    {
      name: 'a document slower than the bound',
      url: () => `${agent.base}/slow.json`,
      env: 'development',
      timeoutMs: 300,
      why: /no answer within/,
    },
  ];
  it.each(refusals)('refuses $name', async ({ url, env, maxBytes = 10_240, timeoutMs = 2_000, why }) => {
    const fetchDocument = clientDocumentFetch({
      policy: webhookUrlPolicy(env),
      egress: NO_EGRESS_PROXY,
      timeoutMs,
      maxBytes,
      ca: tls.cert,
    });
    await expect(fetchDocument(url(), {})).rejects.toThrow(why);
  });
});
