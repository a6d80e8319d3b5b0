import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { killAllServers, startServer } from '../helpers/server-process';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-keep-alive-'));
afterAll(async () => {
  await killAllServers();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One keep-alive connection to the server, read answer by answer (each has a Content-Length). */
function openConnection(
  port: number,
): Promise<{ socket: Socket; get(path: string): Promise<{ status: number; body: string }>; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffered: Buffer = Buffer.alloc(0);
    let waiting: ((chunk: Buffer) => void) | undefined;
    const opened = Date.now();
    const closed = new Promise<number>((done) => socket.once('close', () => done(Date.now() - opened)));
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      waiting?.(buffered);
    });
    socket.on('error', () => undefined);
    const answer = () =>
      new Promise<{ status: number; body: string }>((settle, fail) => {
        const parse = (bytes: Buffer) => {
          const end = bytes.indexOf('\r\n\r\n');
          if (end < 0) return;
          const head = bytes.subarray(0, end).toString('latin1');
          const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
          if (bytes.length < end + 4 + length) return;
          waiting = undefined;
          buffered = bytes.subarray(end + 4 + length);
          settle({ status: Number(head.split(' ')[1]), body: bytes.subarray(end + 4, end + 4 + length).toString('utf8') });
        };
        waiting = parse;
        socket.once('close', () => fail(new Error('the server closed the connection')));
        parse(buffered);
      });
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        get: (path) => {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
          return answer();
        },
      }),
    );
    socket.once('error', reject);
  });
}

const portOf = (base: string) => Number(new URL(base).port);

describe('idle keep-alive connections', () => {
  it('are kept past the 60 s of the common load balancers: a connection idle for 65 s is reused and served', async () => {
    const server = await startServer({ DATA_DIR: dataDir, ECB_BASE_URL: 'http://127.0.0.1:9/ecb', KEEP_ALIVE_TIMEOUT: undefined });
    const connection = await openConnection(portOf(server.base));
    expect((await connection.get('/v1/units/ft')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 65_000));
    const reused = await connection.get('/v1/units/meter');
    expect(reused.status).toBe(200);
    expect(JSON.parse(reused.body).data.id).toBe('meter');
    connection.socket.destroy();
    await server.kill();
  }, 120_000);

  it('are closed after KEEP_ALIVE_TIMEOUT seconds idle', async () => {
    const server = await startServer({ DATA_DIR: dataDir, ECB_BASE_URL: 'http://127.0.0.1:9/ecb', KEEP_ALIVE_TIMEOUT: '2' });
    const connection = await openConnection(portOf(server.base));
    expect((await connection.get('/v1/units/ft')).status).toBe(200);
    // Closed by the server about 2 s after the answer (node checks its timers each second).
    expect(await connection.closed).toBeLessThan(10_000);
    await server.kill();
  }, 60_000);
});

describe('KEEP_ALIVE_TIMEOUT', () => {
  it.each([
    ['unset', undefined, undefined],
    ['90', '90', 90],
    ['1', '1', 1],
  ])('%s is read as %s seconds', (_label, value, seconds) => {
    expect(loadConfig({ KEEP_ALIVE_TIMEOUT: value }).keepAliveTimeoutSeconds).toBe(seconds);
  });

  it.each(['0', '-5', '1.5', 'soon', '3601'])('refuses %j, naming the variable', (value) => {
    expect(() => loadConfig({ KEEP_ALIVE_TIMEOUT: value })).toThrow(/KEEP_ALIVE_TIMEOUT/);
  });
});
