import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * Request bodies are read as sent: a body with a content coding (gzip, br, deflate) is refused with
 * 415 UNSUPPORTED_MEDIA_TYPE and `Accept-Encoding: identity` (RFC 7694) on every surface that reads
 * one, before any work or charge, instead of being read as garbled text ("not valid UTF-8").
 */
let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await createTestApp();
  key = await t.createKey('free');
});
afterAll(() => t.close());

const convert = JSON.stringify({ value: '1', from: 'inch', to: 'centimeter' });
const graphql = JSON.stringify({ query: '{ convert(value: "1", from: "inch", to: "centimeter") { result { value } } }' });

const post = (path: string, body: Buffer | string, headers: Record<string, string>) =>
  t.fetch(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body });

describe('a request body with a content coding', () => {
  it.each([
    ['gzip', gzipSync(convert)],
    ['GZIP', gzipSync(convert)],
    ['br', Buffer.from(convert)],
    ['deflate, identity', Buffer.from(convert)],
  ])('REST: Content-Encoding %s is 415 with Accept-Encoding: identity and the contract body', async (coding, body) => {
    const res = await post('/v1/convert', body, { 'content-encoding': coding });
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const error = (await res.json()).error;
    expect(error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415, requestId: res.headers.get('x-request-id') });
    expect(error.message).toBe(
      `The request body has Content-Encoding ${coding.toLowerCase().replace(', identity', '')}; send it uncompressed.`,
    );
  });

  it('GraphQL POST: 415 UNSUPPORTED_MEDIA_TYPE in the errors, with Accept-Encoding: identity', async () => {
    const res = await post('/graphql', gzipSync(graphql), { 'content-encoding': 'gzip', accept: 'application/graphql-response+json' });
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    const body = await res.json();
    expect(body.data).toBeUndefined();
    expect(body.errors[0]).toMatchObject({
      message: 'The request body has Content-Encoding gzip; send it uncompressed.',
      extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 },
    });
  });

  it('MCP: 415 with the contract body', async () => {
    const rpc = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const res = await post('/mcp', gzipSync(rpc), { 'content-encoding': 'gzip', accept: 'application/json, text/event-stream' });
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    expect((await res.json()).error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
  });

  it('the account page: a coded sign-up form is 415 and creates no account', async () => {
    const form = 'email=coded%40example.com&password=correct+horse+battery+staple';
    const coded = await t.fetch('/account/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip', origin: t.origin, accept: 'text/html' },
      body: gzipSync(form),
    });
    expect(coded.status).toBe(415);
    expect(coded.headers.get('accept-encoding')).toBe('identity');
    expect(await t.store.findAccountByEmail('coded@example.com')).toBeUndefined();
    const plain = await t.fetch('/account/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: t.origin, accept: 'text/html' },
      body: form,
    });
    expect(plain.status).toBe(303);
    expect(await t.store.findAccountByEmail('coded@example.com')).toBeDefined();
  });

  it('Content-Encoding: identity (or empty) is read as a plain body', async () => {
    const rest = await post('/v1/convert', convert, { 'content-encoding': 'identity' });
    expect(rest.status).toBe(200);
    expect((await rest.json()).data.result.value).toBe('2.54');
    const gql = await post('/graphql', graphql, { 'content-encoding': 'Identity' });
    expect((await gql.json()).data.convert.result.value).toBe('2.54');
  });

  it('charges nothing for a refused body: the quota moves by the accepted conversions only', async () => {
    const fresh = await t.createKey('free');
    const send = (headers: Record<string, string>, body: Buffer | string) =>
      t.fetch('/v1/convert', {
        method: 'POST',
        headers: { authorization: `Bearer ${fresh}`, 'content-type': 'application/json', ...headers },
        body,
      });
    for (let i = 0; i < 3; i++) expect((await send({ 'content-encoding': 'gzip' }, gzipSync(convert))).status).toBe(415);
    const accepted = await send({}, convert);
    expect(accepted.status).toBe(200);
    const limit = Number(accepted.headers.get('x-quota-limit'));
    expect(Number(accepted.headers.get('x-quota-remaining'))).toBe(limit - 1);
  });
});
