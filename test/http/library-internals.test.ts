import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { buildSchema, GraphQLError, parse, validate } from 'graphql';
import { processRegularResult, type FetchAPI } from 'graphql-yoga';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterAll, describe, expect, it } from 'vitest';
import { VALIDATION_ABORTED } from '../../src/http/answer/errors';

/**
 * The library internals the app still relies on, each held to what the code assumes: these fail
 * when a library (pinned exactly in package.json) or Node changes them.
 */
describe('library internals the app relies on', () => {
  let server: Server | undefined;
  afterAll(() => server?.close());

  it('node:http: a socket names its response in flight as _httpMessage (socket-answers.ts reads it)', async () => {
    const seen = new Promise<boolean>((resolve) => {
      server = createServer((req, res) => {
        resolve((req.socket as Socket & { _httpMessage?: unknown })._httpMessage === res);
        res.end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    await fetch(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`);
    expect(await seen).toBe(true);
  });

  it('node:http: a ServerResponse made for a socket no request owns writes on it once assigned (assignSocket; socket-answers.ts)', async () => {
    const own = createServer();
    own.prependListener('connection', (socket: Socket) => {
      const res = new ServerResponse(new IncomingMessage(socket));
      res.assignSocket(socket);
      res.once('finish', () => socket.end());
      res.writeHead(503, 'Service Unavailable', { 'content-length': '2' });
      res.end('no');
    });
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    try {
      const text = await new Promise<string>((resolve) => {
        const socket = connect((own.address() as AddressInfo).port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      });
      expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*content-length: 2\r\n[\s\S]*\r\n\r\nno$/);
    } finally {
      own.close();
    }
  });

  it('rate-limiter-flexible: RateLimiterRes is built from (remaining, msBeforeNext, consumed, isFirstInDuration) (rate-limit-turns.ts)', () => {
    const res = new RateLimiterRes(3, 1500, 7, true);
    expect([res.remainingPoints, res.msBeforeNext, res.consumedPoints, res.isFirstInDuration]).toEqual([3, 1500, 7, true]);
  });

  it('graphql-js: the error past 100 validation errors has the message errors.ts rewords', () => {
    const schema = buildSchema('type Query { a: Int }');
    const errors = validate(schema, parse(`{ ${Array.from({ length: 120 }, (_, i) => `f${i}`).join(' ')} }`));
    expect(errors.at(-1)?.message).toBe(VALIDATION_ABORTED);
  });

  it('graphql-yoga: extensions.http.spec keeps 200 under application/json and the status under application/graphql-response+json (error-codes.ts, graphql-http.ts)', () => {
    const captured: { status?: number }[] = [];
    const fetchAPI = {
      Response: class {
        constructor(_body: unknown, init: { status: number }) {
          captured.push(init);
        }
      },
    } as unknown as FetchAPI;
    const result = { errors: [new GraphQLError('bad', { extensions: { code: 'INVALID_REQUEST', http: { status: 400, spec: true } } })] };
    processRegularResult(result, fetchAPI, 'application/json');
    processRegularResult(result, fetchAPI, 'application/graphql-response+json');
    expect(captured.map((init) => init.status)).toEqual([200, 400]);
  });
});
