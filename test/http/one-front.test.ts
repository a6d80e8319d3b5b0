import { STATUS_CODES } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { capturedLogger } from '../helpers/captured-log';
import { listen, rawRequest, type RawResponse } from '../helpers/http-server';

/**
 * Contract section 12, one front: every answer, whoever made it (REST, GraphQL, GraphiQL, an odd
 * target, node:http's parser, CONNECT, the connection cap), leaves through the one finish. Over
 * raw sockets against the real listener, each has its reason phrase, a request id, the security
 * headers, exactly one access-log line with its status and error code, and exactly one request
 * metric.
 */
const { logger, lines } = capturedLogger();

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let capped: Awaited<ReturnType<typeof listen>>;
let key: string;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_RATE_LIMIT: '100000' }, { logger });
  server = await listen(t);
  capped = await listen(t, { maxConnections: 1 });
  key = await t.createKey('free');
});
afterAll(async () => {
  await capped.close();
  await server.close();
  await t.close();
});

/** Every request count in the metrics, summed over route, method and status. */
async function requestsCounted(): Promise<number> {
  const text = await t.app.metrics.render();
  return [...text.matchAll(/^measurement_http_requests_total\{.*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/** The access-log lines of one request id, once its line is there and the turn that wrote it is over. */
async function accessLinesOf(requestId: string): Promise<Record<string, unknown>[]> {
  const of = () => lines.filter((line) => line['msg'] === 'request' && line['requestId'] === requestId);
  for (let i = 0; i < 200 && of().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setImmediate(resolve));
  return of();
}

/** The code the answer names: a REST error's, or a GraphQL result's first error's. */
function codeOf(res: RawResponse): string | undefined {
  if (!/json/.test(res.headers['content-type'] ?? '')) return undefined;
  const body = JSON.parse(res.body) as { error?: { code: string }; errors?: { extensions?: { code?: string } }[] };
  return body.error?.code ?? body.errors?.[0]?.extensions?.code;
}

async function expectFinished(send: () => Promise<RawResponse>, status: number, code: string | undefined): Promise<RawResponse> {
  const before = await requestsCounted();
  const res = await send();
  expect(res.statusLine).toBe(`HTTP/1.1 ${status} ${STATUS_CODES[status]}`);
  const requestId = res.headers['x-request-id'];
  expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  expect(codeOf(res)).toBe(code);
  if (code !== undefined && res.headers['content-type']?.startsWith('application/json') && status >= 400 && JSON.parse(res.body).error) {
    expect(JSON.parse(res.body).error.requestId).toBe(requestId);
  }
  const access = await accessLinesOf(requestId!);
  expect(access).toHaveLength(1);
  expect(access[0]).toMatchObject({ status });
  expect(access[0]!['code']).toBe(code);
  expect((await requestsCounted()) - before).toBe(1);
  return res;
}

const host = () => `Host: 127.0.0.1:${server.port}\r\n`;
const post = (path: string, body: string, headers = '') =>
  `POST ${path} HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`;
const get = (target: string, headers = '') => `GET ${target} HTTP/1.1\r\n${host()}${headers}Connection: close\r\n\r\n`;

describe('every answer leaves through the one finish', () => {
  it.each([
    ['POST /graphql, a valid document', () => post('/graphql', '{"query":"{ __typename }"}'), 200, undefined],
    ['POST /graphql, a query that is not a string', () => post('/graphql', '{"query":5}'), 400, 'INVALID_REQUEST'],
    ['POST /graphql, broken JSON', () => post('/graphql', '{"query":'), 400, 'INVALID_REQUEST'],
    ['GET /graphql?query=…', () => get('/graphql?query=%7B__typename%7D', 'Accept: application/json\r\n'), 200, undefined],
    ['GraphiQL', () => get('/graphql', 'Accept: text/html\r\n'), 200, undefined],
    ['a REST convert without a key', () => get('/v1/convert?value=1&from=m&to=ft'), 401, 'UNAUTHORIZED'],
    ['an unknown route', () => get('/nowhere'), 404, 'NOT_FOUND'],
    ['an absolute-form target', () => get(`http://127.0.0.1/v1/units/ft`), 200, undefined],
    ['OPTIONS *', () => `OPTIONS * HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`, 200, undefined],
    ['GET *', () => get('*'), 400, 'INVALID_REQUEST'],
    ['an HTTP/1.1 request without Host', () => 'GET /v1/units/ft HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'INVALID_REQUEST'],
    ['an unknown Expect', () => get('/v1/units/ft', 'Expect: teapot\r\n'), 400, 'INVALID_REQUEST'],
    ['a malformed request line', () => 'HELLO THERE\r\n\r\n', 400, 'INVALID_REQUEST'],
    [
      'a malformed chunked body',
      () => `POST /v1/convert HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`,
      400,
      'INVALID_REQUEST',
    ],
    [
      'a GET whose chunked body is malformed: its answer stands, then the connection closes',
      () => `GET /v1/units/ft HTTP/1.1\r\n${host()}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      200,
      undefined,
    ],
    ['headers over the limit', () => get(`/v1/units?category=${'x'.repeat(20_000)}`), 431, 'HEADERS_TOO_LARGE'],
    ['CONNECT', () => 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
  ])('%s', async (_, bytes, status, code) => {
    await expectFinished(() => rawRequest(server.port, bytes()), status, code);
  });

  it('a keyed REST convert carries the rate limit and the quota', async () => {
    const res = await expectFinished(
      () => rawRequest(server.port, get('/v1/convert?value=1&from=m&to=ft', `Authorization: Bearer ${key}\r\n`)),
      200,
      undefined,
    );
    expect(res.headers['ratelimit']).toMatch(/^"[^"]+";r=\d+;t=\d+$/);
    expect(res.headers['x-quota-remaining']).toMatch(/^\d+$/);
  });

  it('a connection over the cap', async () => {
    const open = await new Promise<Socket>((resolve) => {
      const socket = connect(capped.port, '127.0.0.1', () => resolve(socket));
    });
    try {
      const res = await expectFinished(() => rawRequest(capped.port, get('/v1/units/ft')), 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers['connection']).toBe('close');
    } finally {
      open.destroy();
    }
  });
});
