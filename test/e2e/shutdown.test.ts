import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built } from '../helpers/built';

const run = promisify(execFile);

/**
 * `npm start` as a container runtime or systemd runs it: in its own process group, stopped by a
 * SIGTERM to the npm process itself (not to the server below it).
 */
let npm: ChildProcess;
let port = 0;
let logs = '';
let dataDir: string;
const env = () => ({
  ...process.env,
  DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'info',
  ECB_BASE_URL: 'http://127.0.0.1:9/ecb',
  NODE_ENV: '',
});

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-stop-'));
  npm = spawn('npm', ['start'], { env: env(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  npm.stderr!.on('data', (chunk) => (logs += chunk));
  port = await new Promise<number>((resolve, reject) => {
    npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${logs}`)));
    npm.stdout!.on('data', (chunk: Buffer) => {
      logs += chunk;
      const found = /listening on http:\/\/[\d.]+:(\d+)/.exec(logs)?.[1];
      if (found) resolve(Number(found));
    });
  });
});
afterAll(() => {
  // Only if the test failed half-way: the whole group, so nothing outlives the suite.
  if (processGroupAlive(npm.pid!)) process.kill(-npm.pid!, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function processGroupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const waitFor = async (what: string, done: () => boolean) => {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!done()) throw new Error(`gave up waiting for ${what}:\n${logs}`);
};

function portOpen(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(p, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

describe('npm start', () => {
  it('runs the compiled server with NODE_ENV=production by default, no transpiler', async () => {
    const { stdout } = await run('ps', ['-o', 'pid=,args=', '-g', String(npm.pid)]);
    const server = stdout.split('\n').find((line) => line.includes('dist/main.js'))!;
    expect(server).toMatch(/node .*dist\/main\.js/);
    expect(stdout).not.toMatch(/tsx/);
    const environ = readFileSync(`/proc/${server.trim().split(/\s+/)[0]}/environ`, 'utf8').split('\0');
    expect(environ).toContain('NODE_ENV=production');
  });

  it('on SIGTERM to the npm process, finishes the request in flight, then closes the port and leaves no process', async () => {
    const { stdout } = await run(process.execPath, [built('admin'), 'key', 'create', '--plan', 'free'], {
      env: env(),
    });
    const key = JSON.parse(stdout).key as string;
    const body = JSON.stringify({ value: '1', from: 'mile', to: 'km' });
    const socket: Socket = connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    // Headers and half the body: the request is in flight when the signal arrives.
    socket.write(
      `POST /v1/convert HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));

    process.kill(npm.pid!, 'SIGTERM');
    await waitFor('the shutdown to begin', () => logs.includes('shutting down'));
    expect(await portOpen(port)).toBe(false);
    socket.write(body.slice(10));
    await waitFor('the answer', () => answer.includes('"result"'));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('"value":"1.609344"');

    expect(await exited).toBe(0);
    expect(logs).toContain('"msg":"stopped"');
    await waitFor('the process group to be empty', () => !processGroupAlive(npm.pid!));
    expect(await portOpen(port)).toBe(false);
  });
});
