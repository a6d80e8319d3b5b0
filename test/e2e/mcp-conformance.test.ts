import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';
import { frontServer } from '../helpers/http';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const CLI = path.join(path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
/** The scenarios that do not apply to a server of read-only tools of its own, each with its reason. */
const BASELINE = path.join(import.meta.dirname, 'mcp-conformance-baseline.yml');

let t: TestApp;
let server: ReturnType<typeof frontServer>;
let proxy: Server;
let proxyUrl: string;

/**
 * A loopback proxy that adds the key to every request, as the conformance tool sends no
 * Authorization header; everything else (Host and Origin included, for the DNS-rebinding
 * scenario) reaches the server as the tool sent it.
 */
function keyProxy(target: string, key: string): Server {
  const { hostname, port } = new URL(target);
  return createServer((req, res) => {
    const forwarded = request(
      { hostname, port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
}

beforeAll(async () => {
  // The tool sends dozens of requests a second with the one key; the rate limit is not under test here.
  t = await createTestApp({ KEY_RATE_LIMIT: '10000' });
  server = frontServer(t.app);
  const origin = await server.origin();
  proxy = keyProxy(origin, await t.createKey('developer'));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://localhost:${(proxy.address() as { port: number }).port}/mcp`;
});
afterAll(async () => {
  await new Promise((resolve) => proxy.close(resolve));
  await server.close();
  await t.close();
});

interface Counts {
  passed: string[];
  failed: string[];
}

/** Each scenario's checks as the tool saved them: passed when it made checks and all succeeded, as the tool counts them. */
function scenarioOutcomes(dir: string): Counts {
  const counts: Counts = { passed: [], failed: [] };
  for (const entry of readdirSync(dir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry)?.[1] ?? entry;
    const checks = JSON.parse(readFileSync(path.join(dir, entry, 'checks.json'), 'utf8')) as { status: string }[];
    const passed = checks.length > 0 && checks.every((check) => check.status === 'SUCCESS');
    (passed ? counts.passed : counts.failed).push(scenario);
  }
  return counts;
}

describe('@modelcontextprotocol/conformance 0.1.16, server suite, against a started server', () => {
  it('holds no authorization scenario for servers (its auth/* scenarios all test clients), so OAuth on /mcp is checked by test/services/oauth-flow.test.ts', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'list', '--server']);
    const servers = [...stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
    expect(servers.length).toBeGreaterThan(30);
    expect(servers.filter((name) => /auth|oauth|token|protected-resource/i.test(name))).toEqual([]);
    const { stdout: clients } = await run(process.execPath, [CLI, 'list', '--client']);
    expect(clients).toContain('auth/metadata-default');
  });

  it.each(['2025-06-18', '2025-11-25'])(
    'passes every scenario of %s that applies to a tools-only server; the baseline holds only those that do not',
    async (version) => {
      const out = mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
      try {
        const args = [CLI, 'server', '--url', proxyUrl, '--spec-version', version, '--expected-failures', BASELINE, '-o', out];
        // Exit 0: no failure outside the baseline, and no baseline entry that passed.
        const { stdout } = await run(process.execPath, args, { timeout: 170_000, maxBuffer: 16 * 1024 * 1024 }).catch(
          (error: { stdout?: string }) => {
            throw new Error(`conformance ${version} failed:\n${error.stdout?.slice(-1200)}`);
          },
        );
        const { passed, failed } = scenarioOutcomes(out);
        const baseline = readFileSync(BASELINE, 'utf8');
        for (const scenario of failed) expect(baseline, `${scenario} failed`).toMatch(new RegExp(`^  - ${scenario}\\b`, 'm'));
        const applicable = ['server-initialize', 'ping', 'tools-list', ...(version === '2025-11-25' ? ['dns-rebinding-protection'] : [])];
        expect(passed.sort()).toEqual(applicable.sort());
        console.log(`conformance ${version}: ${passed.length} passed, ${failed.length} not applicable (baseline)\n${stdout.slice(-400)}`);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
});
