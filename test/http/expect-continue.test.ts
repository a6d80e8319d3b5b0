import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { listen } from '../helpers/http-server';

/**
 * Expect: 100-continue (RFC 9110 10.1.1): a client waits for 100 Continue before it sends a body. A
 * keyed route checks the key first, so a request that will be refused is refused before its body
 * is asked for; everything else is continued at once.
 */
const CONVERT_BODY = '{"value":"1","from":"m","to":"ft"}';

/** Sends the head, and the body only once 100 Continue arrived; what the server sent, until it closes. */
function expectingContinue(port: number, head: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let received = '';
    let sent = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (!sent && received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        sent = true;
        socket.write(body);
      }
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, 5_000).unref();
  });
}

describe.each(['direct', 'sofa'] as const)('Expect: 100-continue (REST_EXECUTION=%s)', (execution) => {
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ REST_EXECUTION: execution });
    server = await listen(t);
    key = await t.createKey();
  });
  afterAll(async () => {
    await server.close();
    await t.close();
  });
  const head = (path: string, authorization: string | undefined, body: string, type = 'application/json') =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n${authorization ? `Authorization: ${authorization}\r\n` : ''}` +
    `Content-Type: ${type}\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;

  it.each([
    ['POST /v1/convert without a key', '/v1/convert', undefined],
    ['POST /v1/convert with a malformed key', '/v1/convert', 'Bearer nope'],
    ['POST /v1/batch with an unknown key', '/v1/batch', 'Bearer msr_test_0000000000000000000000000000000000000000000aaaaaa'],
    ['POST /mcp without a key', '/mcp', undefined],
  ])('%s is answered 401 without 100 Continue, and the connection closed', async (_, path, authorization) => {
    const answer = await expectingContinue(server.port, head(path, authorization, CONVERT_BODY), CONVERT_BODY);
    expect(answer).not.toContain('100 Continue');
    expect(answer).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n/);
    expect(answer).toMatch(/\r\nwww-authenticate: Bearer realm="measurement-api"/i);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
  });

  it('continues a keyed request whose key is valid, then answers its body', async () => {
    const answer = await expectingContinue(server.port, head('/v1/convert', `Bearer ${key}`, CONVERT_BODY), CONVERT_BODY);
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('"unit":"foot"');
  });

  it('continues a request to a public surface at once (GraphQL without a key)', async () => {
    const body = JSON.stringify({ query: '{ __typename }' });
    const answer = await expectingContinue(server.port, head('/graphql', undefined, body), body);
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain('"__typename":"Query"');
  });
});
