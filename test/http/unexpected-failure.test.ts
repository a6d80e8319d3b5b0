import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app';
import { PersistedDocuments } from '../../src/services/persisted-documents';
import type { FrontHandler } from '../../src/http/graphql/yoga-answers';
import { createTestApp, type TestApp } from '../helpers/app';
import { capturedLogger } from '../helpers/captured-log';
import { frontServer, rawRequest } from '../helpers/http';

/**
 * An unexpected failure leaves through the same finish as every other answer: the contract's
 * INTERNAL error body with the request id, the security headers and the reason phrase, one
 * access-log line with its code and one request metric; never a bare 500.
 */
describe('an unexpected failure at the front', () => {
  let t: TestApp;
  const { logger, lines } = capturedLogger();
  /** The app with one handler replaced: the REST edge throws, and the pages answer with a header node:http refuses to write. */
  let broken: ReturnType<typeof frontServer>;
  beforeAll(async () => {
    t = await createTestApp({}, { logger });
    const throwing: FrontHandler = () => {
      throw new Error('a bug in a handler');
    };
    const unwritable: FrontHandler = (req, res, context, started) => {
      void t.app.front.finish.send(
        req,
        res,
        { label: 'account', cors: undefined },
        context,
        { status: 200, headers: { 'content-type': 'text/plain', 'x-bad': 'line\nbreak' }, body: 'never sent' },
        started,
      );
    };
    const app: Pick<App, 'front'> = { front: { ...t.app.front, edge: throwing, pages: unwritable, finish: t.app.front.finish } };
    broken = frontServer(app, { logger });
  });
  afterAll(async () => {
    await broken.close();
    await t.close();
  });

  it.each([
    ['a handler that throws', '/v1/units/meter', 'other'],
    ['an answer that cannot be written', '/account', 'account'],
  ])('answers %s with the contract’s 500, its request id, the security headers and one log line', async (_, path, label) => {
    lines.length = 0;
    const before = await t.app.metrics.render();
    const answer = await rawRequest(await broken.origin(), 'GET', path, {});
    expect(answer.status).toBe(500);
    const body = JSON.parse(answer.text) as { error: { code: string; status: number; requestId: string } };
    expect(body.error).toMatchObject({ code: 'INTERNAL', status: 500 });
    expect(answer.headers.get('x-request-id')).toBe(body.error.requestId);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(answer.headers.get('x-bad')).toBeNull();
    const access = lines.filter((line) => line['msg'] === 'request');
    expect(access).toEqual([expect.objectContaining({ requestId: body.error.requestId, path, status: 500, code: 'INTERNAL' })]);
    expect(lines.filter((line) => line['msg'] === 'unexpected error' && line['requestId'] === body.error.requestId)).toHaveLength(1);
    const counted = (text: string) =>
      Number(new RegExp(`measurement_http_requests_total\\{route="${label}",method="GET",status="500"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    expect(counted(await t.app.metrics.render()) - counted(before)).toBe(1);
  });

  it('writes the reason phrase on the status line', async () => {
    const { request } = await import('node:http');
    const origin = new URL(await broken.origin());
    const reason = await new Promise<string | undefined>((resolve, reject) => {
      const req = request({ hostname: origin.hostname, port: origin.port, path: '/v1/units/meter', agent: false }, (res) => {
        res.resume();
        resolve(res.statusMessage);
      });
      req.on('error', reject);
      req.end();
    });
    expect(reason).toBe('Internal Server Error');
  });

  it('answers a route whose service fails unexpectedly the same way, through the REST error exit', async () => {
    const failing = Object.create(t.store) as typeof t.store;
    failing.findActiveKeyByHash = async () => {
      throw new Error('disk on fire at /secret/path.ts:12');
    };
    const withFailingStore = await createTestApp({}, { logger, store: failing });
    try {
      lines.length = 0;
      const answer = await rawRequest(withFailingStore.origin, 'GET', '/v1/convert?value=1&from=inch&to=foot', {
        authorization: `Bearer ${await t.createKey()}`,
      });
      expect(answer.status).toBe(500);
      const body = JSON.parse(answer.text) as { error: { code: string; requestId: string } };
      expect(body.error.code).toBe('INTERNAL');
      expect(answer.text).not.toMatch(/fire|secret|\.ts/);
      expect(answer.headers.get('x-request-id')).toBe(body.error.requestId);
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(lines.filter((line) => line['msg'] === 'request')).toEqual([
        expect.objectContaining({ requestId: body.error.requestId, status: 500, code: 'INTERNAL' }),
      ]);
      expect(lines.filter((line) => line['msg'] === 'unexpected error' && line['requestId'] === body.error.requestId)).toHaveLength(1);
    } finally {
      await withFailingStore.close();
    }
  });
  it('answers a GraphQL request whose step fails unexpectedly with INTERNAL, logged once', async () => {
    const documents = new PersistedDocuments({ maxBytes: 1 << 20 });
    documents.find = () => {
      throw new Error('the document store broke');
    };
    const withFailingDocuments = await createTestApp({}, { logger, persistedDocuments: documents });
    try {
      lines.length = 0;
      const extensions = { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } };
      const answer = await rawRequest(
        withFailingDocuments.origin,
        'POST',
        '/graphql',
        { 'content-type': 'application/json' },
        JSON.stringify({ extensions }),
      );
      const body = JSON.parse(answer.text) as { errors: { message: string; extensions: { code: string } }[] };
      expect(body.errors[0]!.extensions.code).toBe('INTERNAL');
      expect(answer.text).not.toMatch(/broke/);
      const requestId = answer.headers.get('x-request-id');
      expect(lines.filter((line) => line['msg'] === 'request')).toEqual([expect.objectContaining({ requestId, code: 'INTERNAL' })]);
      expect(lines.filter((line) => line['msg'] === 'unexpected error' && line['requestId'] === requestId)).toHaveLength(1);
    } finally {
      await withFailingDocuments.close();
    }
  });
});
