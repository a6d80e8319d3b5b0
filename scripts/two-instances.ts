/**
 * Two instances on one PostgreSQL database and one Redis, behind a tiny round-robin proxy: the
 * recipe of docs/deploy.md, run end to end on one machine.
 *
 *   npm run instances:two                 # builds, starts, serves on http://127.0.0.1:8080 until Ctrl-C
 *   npm run instances:two -- --check      # starts, proves it works (below), stops, exits 0
 *
 * Variables: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/measurement), REDIS_URL
 * (default redis://127.0.0.1:6379/0), PORT (the proxy's, default 8080; 0: any free port), MAIN and
 * ADMIN (the built server and CLI; default dist/main.js and the CLI run through tsx). Every other
 * variable is handed to the instances as it is. `--check` makes a key with the CLI, converts twice
 * through the proxy (one request to each instance) and reads the key's usage from each instance
 * directly: both say 2, the quota being one across instances.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

const env = {
  ...process.env,
  DATABASE_URL: process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/measurement',
  REDIS_URL: process.env['REDIS_URL'] || 'redis://127.0.0.1:6379/0',
};
const MAIN = process.env['MAIN'] || 'dist/main.js';
const ADMIN = process.env['ADMIN'] ? [process.env['ADMIN']] : ['--import', 'tsx', 'scripts/admin.ts'];

interface Instance {
  child: ChildProcess;
  base: string;
  dataDir: string;
}

/** A loopback port free now (the system's pick, released for the instance to take). */
function freePort(): Promise<number> {
  const probe = http.createServer();
  return new Promise((resolve) =>
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    }),
  );
}

/** One instance on a free loopback port (its log on this script's stderr), resolved once it answers its health. */
async function startInstance(): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'two-instances-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--max-semi-space-size=16', MAIN], {
    env: { ...env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, TRUST_PROXY: '1' },
    stdio: ['ignore', 2, 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let tries = 0; tries < 600; tries += 1) {
    if (child.exitCode !== null) throw new Error(`an instance exited (${child.exitCode}) before it listened`);
    const answered = await fetch(`${base}/v1/health`).then(
      () => true,
      () => false,
    );
    if (answered) return { child, base, dataDir };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${base} did not answer within a minute`);
}

/** The proxy: each request to the next instance in turn, with X-Forwarded-For (the instances trust one hop). */
function startProxy(instances: Instance[], port: number): Promise<http.Server> {
  let turn = 0;
  const server = http.createServer((req, res) => {
    const upstream = new URL(instances[turn++ % instances.length]!.base);
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' },
      },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

function cli(args: string[]): Promise<any> {
  const child = spawn(process.execPath, [...ADMIN, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`admin ${args.join(' ')} exited ${code}`)))),
  );
}

/** A key, a conversion through the proxy to each instance, and each instance's count of the key's usage. */
async function check(proxy: string, instances: Instance[]) {
  const { key } = (await cli(['key', 'create', '--plan', 'free'])) as { key: string };
  const authorization = { authorization: `Bearer ${key}` };
  const served: string[] = [];
  for (const _ of instances) {
    const res = await fetch(`${proxy}/v1/convert?value=1&from=mile&to=km`, { headers: authorization });
    if (res.status !== 200) throw new Error(`a conversion through the proxy answered ${res.status}: ${await res.text()}`);
    served.push(((await res.json()) as { data: { result: { value: string } } }).data.result.value);
  }
  const used = [];
  for (const instance of instances) {
    const usage = (await (await fetch(`${instance.base}/v1/usage`, { headers: authorization })).json()) as {
      data: { quota: { used: number } };
    };
    used.push(usage.data.quota.used);
  }
  const health = (await (await fetch(`${proxy}/v1/health`)).json()) as { data: { status: string } };
  return { proxy, instances: instances.map((i) => i.base), converted: served, usedOnEachInstance: used, health: health.data.status };
}

async function main() {
  const instances = await Promise.all([startInstance(), startInstance()]);
  const proxy = await startProxy(instances, Number(process.env['PORT'] ?? 8080));
  const origin = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  const stop = () => {
    proxy.close();
    for (const instance of instances) {
      instance.child.kill('SIGTERM');
      rmSync(instance.dataDir, { recursive: true, force: true });
    }
  };
  if (!process.argv.includes('--check')) {
    console.log(JSON.stringify({ proxy: origin, instances: instances.map((i) => i.base) }));
    process.once('SIGINT', stop).once('SIGTERM', stop);
    return;
  }
  try {
    const report = await check(origin, instances);
    console.log(JSON.stringify(report));
    if (report.usedOnEachInstance.some((used) => used !== instances.length)) process.exitCode = 1;
  } finally {
    stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
