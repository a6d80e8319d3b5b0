import { STATUS_CODES } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { listen, rawRequest, type RawResponse } from '../helpers/http-server';

/**
 * Contract section 11, odd requests: over raw sockets, through the real node:http front, under both
 * REST executions. Every answer has its reason phrase, the security headers, and a JSON body in the contract's
 * shape with no stack trace or file path.
 */
function expectShape(res: RawResponse, status: number): any {
  expect(res.statusLine).toBe(`HTTP/1.1 ${status} ${STATUS_CODES[status]}`);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  expect(res.body).not.toMatch(/\bat \S+ \(|node:internal|\/src\/|node_modules/);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  return JSON.parse(res.body);
}

function expectError(res: RawResponse, status: number, code: string): any {
  const body = expectShape(res, status);
  expect(body.error).toMatchObject({ code, status });
  expect(body.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  return body;
}

const CONVERT_BODY = '{"value":"1","from":"m","to":"ft"}';

/** A keyed POST /v1/convert, its body chunked when `framing` names a transfer coding, else with its length. */
function convertPostOn(port: number, key: string, framing?: string): string {
  const head = `POST /v1/convert HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n`;
  if (framing === undefined) return `${head}Content-Length: ${CONVERT_BODY.length}\r\n\r\n${CONVERT_BODY}`;
  return `${head}${framing}\r\n\r\n${CONVERT_BODY.length.toString(16)}\r\n${CONVERT_BODY}\r\n0\r\n\r\n`;
}

describe.each(['direct', 'sofa'] as const)('odd requests (REST_EXECUTION=%s)', (execution) => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    t = await createTestApp({ REST_EXECUTION: execution, PUBLIC_RATE_LIMIT: '100000' });
    server = await listen(t, { maxConnections: 3 });
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });
  const host = () => `Host: 127.0.0.1:${server.port}\r\n`;
  const convertPost = (key: string, framing?: string) => convertPostOn(server.port, key, framing);

  it('serves an absolute-form target as its path', async () => {
    const res = await rawRequest(
      server.port,
      `GET http://127.0.0.1:${server.port}/v1/units/ft HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`,
    );
    expect(expectShape(res, 200).data.id).toBe('foot');
  });

  it('serves an absolute-form GraphQL target', async () => {
    const res = await rawRequest(
      server.port,
      `GET http://example.com/graphql?query=%7B__typename%7D HTTP/1.1\r\n${host()}Accept: application/json\r\nConnection: close\r\n\r\n`,
    );
    expect(expectShape(res, 200)).toMatchObject({ data: { __typename: 'Query' }, extensions: { cost: { requestedConversions: 0 } } });
  });

  it('answers OPTIONS * with Allow, and refuses GET * with INVALID_REQUEST', async () => {
    const options = await rawRequest(server.port, `OPTIONS * HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`);
    expect(expectShape(options, 200)).toEqual({ data: { methods: ['GET', 'HEAD', 'POST', 'OPTIONS'] } });
    expect(options.headers['allow']).toBe('GET, HEAD, POST, OPTIONS');
    const get = await rawRequest(server.port, `GET * HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`);
    expectError(get, 400, 'INVALID_REQUEST');
  });

  it.each([
    ['a target URL parsing reads as the path / (//graphql)', '//graphql', ''],
    ['a target with three slashes (///graphql)', '///graphql', ''],
    ['a backslash target (/\\graphql)', '/\\graphql', ''],
  ])('never runs a GraphQL request outside /graphql: %s', async (_, target, hostHeader) => {
    // 300 aliases: far past the front's document limits, which such a request would escape.
    const body = JSON.stringify({ query: `{${Array.from({ length: 300 }, (_, i) => `a${i}: __typename`).join(' ')}}` });
    const hostLine = hostHeader === '' ? host() : `Host: ${hostHeader}\r\n`;
    const res = await rawRequest(
      server.port,
      `POST ${target} HTTP/1.1\r\n${hostLine}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).not.toContain('__typename');
    expect(res.body).not.toContain('"data"');
    expectError(res, res.status, res.status === 404 ? 'NOT_FOUND' : 'METHOD_NOT_ALLOWED');
  });

  it.each([
    ['a path (x/graphql?)', '/', 'x/graphql?'],
    ['a path, on /docs (x/graphql)', '/docs', 'x/graphql'],
    ['a path, on /graphql (127.0.0.1/account)', '/graphql', '127.0.0.1/account'],
    ['a space', '/', 'a b'],
    ['user info', '/', 'user@127.0.0.1'],
    ['a fragment', '/', '127.0.0.1#x'],
    ['a port that is not a number', '/', '127.0.0.1:http'],
    ['nothing', '/', ''],
    ['a port past 65535, on the account page', '/account', 'localhost:99999'],
    ['an IPv4 address out of range, on the account page', '/account', '1.2.3.256'],
    ['a number too large for an address, on GraphiQL', '/graphql', '999999999999'],
    ['a bad IPv6 address, on the front door', '/', '[1::2::3]'],
    ['a lone %', '/account', '%'],
    ['a percent-encoded slash', '/account', 'a%2fb'],
    ['a port alone', '/account', ':80'],
  ])('refuses a Host header holding %s with 400 INVALID_REQUEST naming Host, running nothing', async (_, target, hostHeader) => {
    const body = JSON.stringify({ query: '{ a: __typename }' });
    const post = await rawRequest(
      server.port,
      `POST ${target} HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    const get = await rawRequest(server.port, `GET ${target} HTTP/1.1\r\nHost: ${hostHeader}\r\nAccept: text/html\r\n\r\n`);
    for (const res of [post, get]) {
      expect(expectError(res, 400, 'INVALID_REQUEST').error.param).toBe('Host');
      expect(res.headers['connection']).toBe('close');
      expect(res.body).not.toContain('"data"');
    }
  });

  it('refuses two Host headers, even equal ones (node keeps only the first)', async () => {
    const res = await rawRequest(server.port, `GET /v1/units/ft HTTP/1.1\r\n${host()}${host()}Connection: close\r\n\r\n`);
    expect(expectError(res, 400, 'INVALID_REQUEST').error.param).toBe('Host');
  });

  it.each(['127.0.0.1', 'localhost:80', '[::1]:8080', 'api.example.com', 'xn--bcher-kva.example:443', 'A.Example.COM.:65535'])(
    'serves a request whose Host is %j',
    async (hostHeader) => {
      const res = await rawRequest(server.port, `GET /v1/units/ft HTTP/1.1\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`);
      expect(res.statusLine).toBe('HTTP/1.1 200 OK');
    },
  );

  it.each([
    ['no Host', (key: string) => `GET /v1/health HTTP/1.1\r\n\r\n${convertPost(key).repeat(3)}`],
    ['a Host holding a path', (key: string) => `GET /v1/health HTTP/1.1\r\nHost: a/b\r\n\r\n${convertPost(key).repeat(3)}`],
    ['the target *', (key: string) => `GET * HTTP/1.1\r\n${host()}\r\n${convertPost(key).repeat(3)}`],
    ['a gzip transfer coding', (key: string) => `${convertPost(key, 'Transfer-Encoding: gzip, chunked')}${convertPost(key).repeat(3)}`],
  ])('serves nothing pipelined behind a refused request (%s): one answer, nothing charged', async (_, bytes) => {
    const { key, account } = await t.createAccountKey('free');
    const res = await rawRequest(server.port, bytes(key));
    expect(res.status).toBe(400);
    expect(res.headers['connection']).toBe('close');
    expect(res.body).not.toMatch(/HTTP\/1\.1 \d{3}/);
    expect(await t.store.monthlyUsage(account.id, new Date().toISOString().slice(0, 7))).toBe(0);
  });

  it.each(['gzip, chunked', 'deflate, chunked', 'x-foo , Chunked'])(
    'refuses a body with Transfer-Encoding %s (only chunked is read) with 400 naming Transfer-Encoding, nothing charged',
    async (coding) => {
      const { key, account } = await t.createAccountKey('free');
      const res = await rawRequest(server.port, convertPost(key, `Transfer-Encoding: ${coding}`));
      const body = expectError(res, 400, 'INVALID_REQUEST');
      expect(body.error.param).toBe('Transfer-Encoding');
      expect(body.error.message).toMatch(/^The request body has Transfer-Encoding (gzip|deflate|x-foo); only chunked is accepted/);
      expect(await t.store.monthlyUsage(account.id, new Date().toISOString().slice(0, 7))).toBe(0);
      const chunked = await rawRequest(
        server.port,
        convertPost(key, 'Transfer-Encoding: chunked').replace('Connection: keep-alive', 'Connection: close'),
      );
      expect(chunked.statusLine).toBe('HTTP/1.1 200 OK');
    },
  );

  it('refuses an authority-form target outside CONNECT', async () => {
    expectError(await rawRequest(server.port, `GET example.com:80 HTTP/1.1\r\n${host()}\r\n`), 400, 'INVALID_REQUEST');
  });

  it('refuses an HTTP/1.1 request without Host, and serves an HTTP/1.0 one', async () => {
    const body = expectError(await rawRequest(server.port, 'GET /v1/units/ft HTTP/1.1\r\n\r\n'), 400, 'INVALID_REQUEST');
    expect(body.error.param).toBe('Host');
    const old = await rawRequest(server.port, 'GET /v1/units/ft HTTP/1.0\r\n\r\n');
    expect(old.statusLine).toBe('HTTP/1.1 200 OK');
  });

  it('refuses an Expect other than 100-continue with the JSON 400', async () => {
    const body = expectError(
      await rawRequest(server.port, `GET /v1/units/ft HTTP/1.1\r\n${host()}Expect: foo\r\n\r\n`),
      400,
      'INVALID_REQUEST',
    );
    expect(body.error.param).toBe('Expect');
  });

  it('answers CONNECT 405 with Allow', async () => {
    const res = await rawRequest(server.port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers['allow']).toBe('GET, HEAD, POST, OPTIONS');
  });

  it('puts a reason phrase on Yoga answers too (unknown route, wrong method, OpenAPI)', async () => {
    expectError(await rawRequest(server.port, `GET /nope HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`), 404, 'NOT_FOUND');
    expectError(
      await rawRequest(server.port, `DELETE /v1/units/ft HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`),
      405,
      'METHOD_NOT_ALLOWED',
    );
    expect((await rawRequest(server.port, `GET /openapi.json HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`)).statusLine).toBe(
      'HTTP/1.1 200 OK',
    );
  });

  it('answers a malformed chunked body with the contract 400', async () => {
    const res = await rawRequest(
      server.port,
      `POST /v1/convert HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    expectError(res, 400, 'INVALID_REQUEST');
  });

  it('refuses connections past MAX_CONNECTIONS with a 503 and Retry-After, then takes new ones once they close', async () => {
    const silent = await Promise.all(
      Array.from(
        { length: 3 },
        () =>
          new Promise<ReturnType<typeof connect>>((resolve) => {
            const socket = connect(server.port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    const refused = await rawRequest(server.port, `GET /v1/units/ft HTTP/1.1\r\n${host()}\r\n`);
    expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('1');
    for (const socket of silent) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const served = await rawRequest(server.port, `GET /v1/units/ft HTTP/1.1\r\n${host()}Connection: close\r\n\r\n`);
    expect(served.statusLine).toBe('HTTP/1.1 200 OK');
  });
});

describe('a connection that sends nothing', () => {
  it('is answered 408 REQUEST_TIMEOUT and closed by the server (headersTimeout, checked every second)', async () => {
    const t = await createTestApp();
    const server = await listen(t);
    try {
      const res = await rawRequest(server.port, '');
      expectError(res, 408, 'REQUEST_TIMEOUT');
    } finally {
      await server.close();
      await t.close();
    }
  });
});
