import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const QUERY = '{ health { status } }';
const post = async (body: string, headers: Record<string, string>) => {
  const response = await t.fetch('/graphql', { method: 'POST', headers, body });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};
const get = async (search: string) => {
  const response = await t.fetch(`/graphql?${search}`, { headers: { accept: 'application/json' } });
  return { status: response.status, body: await response.json() };
};

describe('/graphql takes JSON and answers JSON, errors in the contract shape', () => {
  it.each([
    ['text/plain', JSON.stringify({ query: QUERY })],
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(QUERY)}`],
    ['application/graphql', QUERY],
    [
      'multipart/form-data; boundary=x',
      `--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${JSON.stringify({ query: QUERY })}\r\n--x--\r\n`,
    ],
    [undefined, JSON.stringify({ query: QUERY })],
  ])('refuses a %s body with 415 UNSUPPORTED_MEDIA_TYPE, not an empty answer', async (type, body) => {
    const res = await post(body, type === undefined ? {} : { 'content-type': type });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text).errors[0].extensions).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
  });

  it('refuses a body over 64 KiB with 413 PAYLOAD_TOO_LARGE also when no Content-Length announces it (a stream)', async () => {
    const big = JSON.stringify({ query: QUERY, variables: { pad: 'x'.repeat(70 * 1024) } });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    // Sent as chunked transfer coding: no Content-Length reaches the server.
    const response = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(413);
    expect((await response.json()).errors[0].extensions).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  });

  it('refuses a body that is not UTF-8 with 400 INVALID_REQUEST, as REST does', async () => {
    const response = await t.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
  });

  it.each(['APPLICATION/JSON', 'Application/Json; Charset=UTF-8', 'application/json ; charset=utf-8'])(
    'reads a %s body: media types are case-insensitive, as on the REST routes',
    async (type) => {
      const res = await post(JSON.stringify({ query: QUERY }), { 'content-type': type });
      expect(JSON.parse(res.text)).toEqual({ data: { health: { status: 'degraded' } }, extensions: expect.anything() });
      const bad = await post('{"query":', { 'content-type': type });
      expect(JSON.parse(bad.text).errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    },
  );

  it.each(['variables=x', 'variables=%7B', 'extensions=%5B%5B'])(
    'answers malformed JSON in the GET parameter %s with 400, not 500',
    async (param) => {
      const res = await get(`query=${encodeURIComponent(QUERY)}&${param}`);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].extensions).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    },
  );

  it.each(['text/html', 'application/xml', 'image/png'])('answers JSON to an Accept of %s rather than an empty 406', async (accept) => {
    const res = await post(JSON.stringify({ query: QUERY }), { 'content-type': 'application/json', accept });
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toEqual({ data: { health: { status: 'degraded' } }, extensions: expect.anything() });
  });
});
