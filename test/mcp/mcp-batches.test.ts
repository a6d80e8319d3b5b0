import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentMonth } from '../../src/domain/quota';
import { createTestApp, type TestApp } from '../helpers/app';

const NOW = new Date('2024-01-08T12:00:00Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ KEY_RATE_LIMIT: '5' }, { clock: () => NOW });
});
afterAll(async () => {
  await t.close();
});

const convertCall = (id: number | string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'convert', arguments: { value: '1', from: 'mile', to: 'km' } },
});

function post(key: string, body: unknown, version?: string) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (version !== undefined) headers['mcp-protocol-version'] = version;
  return t.fetch('/mcp', { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('JSON-RPC batches on /mcp', () => {
  it.each(['2025-06-18', '2025-11-25', '2026-07-28'])(
    'refuses a batch under revision %s, which removed batching, before any call runs',
    async (version) => {
      const { key, account } = await t.createAccountKey('free');
      const res = await post(key, [convertCall(1), convertCall(2)], version);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(body.error.message).toContain(`'${version}' has no JSON-RPC batches`);
      expect(await t.store.monthlyUsage(account.id, currentMonth(NOW))).toBe(0);
    },
  );

  it('spends one request of the key rate limit per message of a batch under 2025-03-26, before any call runs, and answers each call once', async () => {
    const { key, account } = await t.createAccountKey('free');
    const used = () => t.store.monthlyUsage(account.id, currentMonth(NOW));
    const three = await post(key, [convertCall(1), convertCall(2), convertCall('three')], '2025-03-26');
    expect(three.status).toBe(200);
    const answers = (await three.json()) as { id: unknown; result: { structuredContent: { result: { value: string } } } }[];
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 'three']);
    expect(answers.every((answer) => answer.result.structuredContent.result.value === '1.609344')).toBe(true);
    expect(three.headers.get('ratelimit')).toMatch(/r=2\b/);
    expect(await used()).toBe(3);
    // 3 of 5 spent: a batch of three more is refused whole, and none of its calls runs.
    const refused = await post(key, [convertCall(4), convertCall(5), convertCall(6)], '2025-03-26');
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(await used()).toBe(3);
  });

  it('reads a request without MCP-Protocol-Version as 2025-03-26, as the transport specification says, so its batch spends per message', async () => {
    const { key } = await t.createAccountKey('free');
    const batch = Array.from({ length: 6 }, (_, i) => convertCall(i + 1));
    const res = await post(key, batch);
    expect(res.status).toBe(429);
  });

  it('reads the revision of a batch without the header from the 2026-07-28 envelope its messages carry, and refuses the batch', async () => {
    const { key, account } = await t.createAccountKey('free');
    const claimed = (id: number) => {
      const call = convertCall(id);
      return { ...call, params: { ...call.params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } };
    };
    const res = await post(key, [claimed(1), claimed(2)]);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain("'2026-07-28' has no JSON-RPC batches");
    expect(await t.store.monthlyUsage(account.id, currentMonth(NOW))).toBe(0);
  });

  it('refuses a batch that repeats a request id', async () => {
    const { key, account } = await t.createAccountKey('free');
    const res = await post(key, [convertCall(7), convertCall(7)], '2025-03-26');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(body.error.message).toContain('id 7 more than once');
    expect(await t.store.monthlyUsage(account.id, currentMonth(NOW))).toBe(0);
  });

  it('still answers a single message under every revision', async () => {
    const key = await t.createKey('free');
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await post(key, convertCall(1), version);
      expect(res.status).toBe(200);
      expect((await res.json()).result.structuredContent.result.value).toBe('1.609344');
    }
  });
});
