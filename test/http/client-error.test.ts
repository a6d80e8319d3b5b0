import { Ajv2020 } from 'ajv/dist/2020.js';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi';
import { createTestApp, type TestApp } from '../helpers/app';
import { listen, rawRequest, type RawResponse } from '../helpers/http-server';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
const document = buildOpenApiDocument(schema) as { components: Record<string, unknown> };
const ajv = new Ajv2020({ strict: false });
ajv.addSchema({ $id: 'openapi.json', components: document.components });
const isErrorResponse = ajv.compile({ $ref: 'openapi.json#/components/schemas/ErrorResponse' });

beforeAll(async () => {
  t = await createTestApp();
  server = await listen(t);
});
afterAll(async () => {
  await server.close();
  await t.close();
});

function expectContractError(res: RawResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['connection']).toBe('close');
  const body = JSON.parse(res.body);
  expect(isErrorResponse(body), JSON.stringify(isErrorResponse.errors)).toBe(true);
  expect(body.error).toMatchObject({ code, status, requestId: res.headers['x-request-id'] });
  expect(body.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
}

describe('requests node:http refuses before the app sees them get the contract body', () => {
  it('an over-long request line: 431 HEADERS_TOO_LARGE', async () => {
    const res = await rawRequest(server.port, `GET /v1/units?category=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectContractError(res, 431, 'HEADERS_TOO_LARGE');
  });

  it('headers over the limit: 431 HEADERS_TOO_LARGE', async () => {
    const headers = Array.from({ length: 400 }, (_, i) => `X-Filler-${i}: ${'y'.repeat(60)}`).join('\r\n');
    const res = await rawRequest(server.port, `GET /v1/units HTTP/1.1\r\nHost: x\r\n${headers}\r\n\r\n`);
    expectContractError(res, 431, 'HEADERS_TOO_LARGE');
  });

  it.each([
    ['a request line that is not HTTP', 'HELLO THERE\r\n\r\n'],
    ['a header without a colon', 'GET /v1/units HTTP/1.1\r\nHost x\r\n\r\n'],
    [
      'two Content-Length headers that disagree',
      'POST /v1/convert HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ],
    [
      'a bad chunk size',
      'POST /v1/convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ],
  ])('%s: 400 INVALID_REQUEST', async (_, bytes) => {
    expectContractError(await rawRequest(server.port, bytes), 400, 'INVALID_REQUEST');
  });

  it('chunk extensions over the limit: 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await rawRequest(
      server.port,
      `POST /v1/convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2;e=${'z'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
    );
    expectContractError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a well-formed request on the same server is still served', async () => {
    const res = await rawRequest(server.port, 'GET /v1/units/meter HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
  });
});

/** Sends raw bytes, half-closes after `endAfterMs`, and returns everything the server sent until it closed. */
function sendThenEnd(port: number, bytes: string, endAfterMs: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.write(bytes);
    setTimeout(() => socket.end(), endAfterMs);
  });
}

describe('a request answered before its body was whole gets that one answer only', () => {
  it.each([
    [
      'POST /graphql with a declared body over the limit',
      'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"query":',
    ],
    [
      'POST /v1/convert with a declared body over the limit',
      'POST /v1/convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"value":',
    ],
    [
      'POST /graphql with a chunked body past the limit',
      `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${`4000\r\n${'x'.repeat(0x4000)}\r\n`.repeat(5)}`,
    ],
  ])('%s, cut off after its 413: no second answer on the connection', async (_, bytes) => {
    const text = await sendThenEnd(server.port, bytes, 200);
    const statusLines = text.match(/HTTP\/1\.1 \d{3} [^\r]*/g);
    expect(statusLines).toEqual(['HTTP/1.1 413 Payload Too Large']);
  });
});
