import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fragmentBomb } from '../graphql/bombs';
import { startServer, type ServerProcess } from '../helpers/server-process';

/** The real server in its own process, so that a blocked event loop there cannot stall the test runner. */
let server: ServerProcess;
let base: string;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'measurement-bomb-'));
  server = await startServer({ DATA_DIR: dataDir, ECB_BASE_URL: 'http://127.0.0.1:9/ecb' }, { timeoutMs: 20_000 });
  base = server.base;
});
afterAll(async () => {
  await server?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a fragment bomb on a real server', () => {
  it('refuses the 30-level doubling while a parallel GET /v1/units/ft is answered', async () => {
    const bomb = fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: fragmentBomb(30, 'spreads') }),
    }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> },
    }));
    const unit = fetch(`${base}/v1/units/ft`).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as { data: { id: string } },
    }));
    // Before validation was linear this document kept the server busy for about an hour: neither answer came.
    const [refused, served] = await Promise.all([bomb, unit]);
    // 200 with application/json, 400 with the GraphQL-over-HTTP media type: either way, a refusal.
    expect([200, 400]).toContain(refused.status);
    expect(refused.body.errors).toHaveLength(1);
    expect(refused.body.errors[0]!.extensions.code).toBe('INVALID_REQUEST');
    expect(refused.body.errors[0]!.message).toBe(
      'The document selects 1,073,741,824 fields once its fragments are expanded; at most 2,000 are allowed.',
    );
    expect(served).toEqual({ status: 200, body: { data: expect.objectContaining({ id: 'foot' }) } });
  });
});
