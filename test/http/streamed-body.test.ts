import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStreamed, type StreamEnd } from '../../src/http/front/streamed-body';

/** A made-up body: `count` chunks of 64 KB, noting how far it was pulled and whether it was closed (its `finally`). */
function madeUpBody(count: number, failAt?: number) {
  const state = { pulled: 0, closed: false };
  async function* body(): AsyncGenerator<Buffer> {
    try {
      for (let i = 0; i < count; i++) {
        if (i === failAt) throw new Error('made-up failure half-way');
        state.pulled += 1;
        yield Buffer.alloc(65_536, 'x');
      }
    } finally {
      state.closed = true;
    }
  }
  return { body: body(), state };
}

describe('writeStreamed on a real node:http server', () => {
  let server: Server;
  let origin: string;
  let current: { body: AsyncGenerator<Buffer>; state: { pulled: number; closed: boolean } };
  let ended: Promise<StreamEnd>;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      ended = writeStreamed(res, current.body, { progressTimeoutMs: 60_000 });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** A GET whose answer is read only as far as `readBytes`, then dropped; resolves with the bytes read and whether the body ended or was cut. */
  const get = (readBytes: number) =>
    new Promise<{ bytes: number; outcome: 'ended' | 'cut' | 'dropped' }>((resolve) => {
      const req = request(`${origin}/`, { agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes >= readBytes) {
            req.destroy();
            resolve({ bytes, outcome: 'dropped' });
          }
        });
        res.on('end', () => resolve({ bytes, outcome: 'ended' }));
        res.on('error', () => resolve({ bytes, outcome: 'cut' }));
      });
      req.on('error', () => resolve({ bytes: 0, outcome: 'cut' }));
      req.end();
    });

  it('writes every chunk, chunked, and ends', async () => {
    current = madeUpBody(8);
    expect(await get(Infinity)).toEqual({ bytes: 8 * 65_536, outcome: 'ended' });
    expect(await ended).toEqual({ ended: 'whole' });
    expect(current.state).toEqual({ pulled: 8, closed: true });
  });

  it('stops pulling when the client goes away, and closes the body (its return())', async () => {
    current = madeUpBody(10_000);
    expect((await get(256 * 1024)).outcome).toBe('dropped');
    expect(await ended).toEqual({ ended: 'gone' });
    expect(current.state.closed).toBe(true);
    // 655 MB were on offer; the socket's buffers hold a few MB at most.
    expect(current.state.pulled).toBeLessThan(1_000);
  });

  it('destroys the connection when the body fails half-way: the client sees a cut body, not an ended one', async () => {
    current = madeUpBody(20, 10);
    expect((await get(Infinity)).outcome).toBe('cut');
    const end = await ended;
    expect(end.ended).toBe('failed');
    expect(String((end as { error: unknown }).error)).toMatch(/made-up failure half-way/);
  });
});

describe('writeStreamed with a client that stops reading', () => {
  let server: Server;
  let port: number;
  let current: { body: AsyncGenerator<Buffer>; state: { pulled: number; closed: boolean } };
  let settle: (end: StreamEnd) => void;
  /** The end of the next request's stream (each test makes one request). */
  const nextEnd = () => new Promise<StreamEnd>((resolve) => (settle = resolve));
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      void writeStreamed(res, current.body, { progressTimeoutMs: 2_000 }).then(settle);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('closes the connection of a reader that takes no bytes for the progress timeout, and closes the body', async () => {
    current = madeUpBody(100_000);
    const ended = nextEnd();
    const socket = connect(port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    // Reads the head, then no more: the kernel's buffers fill and the server's writes wait.
    socket.once('data', () => socket.pause());
    const started = Date.now();
    expect(await ended).toEqual({ ended: 'stalled' });
    expect(current.state.closed).toBe(true);
    socket.resume();
    await closed;
    // A few timeouts of 2 s while the kernel's buffers filled, not the 6.5 GB on offer.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(current.state.pulled).toBeLessThan(100_000);
  });

  it('does not cut a reader that keeps taking bytes, however slowly', async () => {
    current = madeUpBody(64);
    const ended = nextEnd();
    const socket = connect(port, '127.0.0.1');
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    let bytes = 0;
    // Takes a little every 50 ms (forty times inside the 2 s timeout, the margin a loaded machine needs), so each wait for 'drain' sees progress.
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      socket.pause();
      setTimeout(() => socket.resume(), 50);
    });
    await new Promise<void>((resolve) => socket.once('end', () => resolve()));
    expect(await ended).toEqual({ ended: 'whole' });
    expect(bytes).toBeGreaterThan(64 * 65_536);
  });
});
