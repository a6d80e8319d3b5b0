import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { openSqliteStore } from '../../src/data/sqlite-store';
import type { AccountStore } from '../../src/services/account-store';
import { createRateLimiters, type RateLimiters } from '../../src/http/limits/rate-limit';
import { createAccounts, LOGIN_LIMITS, type Accounts } from '../../src/services/accounts';
import { resolveHost } from '../../src/data/guarded-connection';
import { secretBox } from '../../src/domain/secret-box';
import { webhookUrlPolicy } from '../../src/domain/webhook-urls';
import { createWebhooks } from '../../src/services/webhooks';

const PASSWORD = 'correct horse battery staple';
let dir: string;
let store: AccountStore;
const opened: RateLimiters[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'accounts-'));
  store = openSqliteStore(path.join(dir, 'measurement.db'));
});
afterEach(async () => {
  for (const limiters of opened.splice(0)) await limiters.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function accountsOn(options: { redisUrl?: string; keyPrefix?: string } = {}): Promise<Accounts> {
  const limiters = await createRateLimiters({ publicPerMinute: 60, keyPerSecond: 50, ...options });
  opened.push(limiters);
  const config = loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const webhooks = createWebhooks({
    store: store.webhooks,
    secrets: () => secretBox(randomBytes(32)),
    resolveHost,
    policy: webhookUrlPolicy(config.apiEnv),
    clock: () => new Date(),
  });
  return createAccounts({
    config,
    store,
    webhooks,
    clock: () => new Date(),
    limiter: (name, points, seconds) => limiters.create(name, points, seconds),
  });
}

async function failures(accounts: Accounts, count: number, email = 'ann@example.com'): Promise<string[]> {
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    codes.push(
      await accounts.logIn({ email, password: `wrong ${i} wrong ${i}` }, '192.0.2.1').then(
        () => 'OK',
        (e: { code: string }) => e.code,
      ),
    );
  }
  return codes;
}

describe('log-in', () => {
  it('an account sees only its own keys: another account’s key is NOT_FOUND', async () => {
    const accounts = await accountsOn();
    const token = await accounts.signUp({ email: 'ann@example.com', password: PASSWORD }, '192.0.2.1');
    const session = await accounts.session(token);
    if (!session || session === 'expired') throw new Error('no session');
    const other = await store.createAccount({ plan: 'free' });
    const { record } = await store.createKey(other.id, 'test');
    await expect(accounts.keyOf(session, record.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(accounts.rotateKey(session, record.id, 0)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('an account made by the CLI without a password cannot log in with any password', async () => {
    const accounts = await accountsOn();
    await store.createAccount({ email: 'cli@example.com', plan: 'free' });
    await expect(accounts.logIn({ email: 'cli@example.com', password: PASSWORD }, '192.0.2.1')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
  });

  it('the failed-log-in counters are in memory without REDIS_URL', async () => {
    const accounts = await accountsOn();
    expect(await failures(accounts, LOGIN_LIMITS.perEmailAndIp + 1)).toEqual([
      ...Array(LOGIN_LIMITS.perEmailAndIp).fill('UNAUTHORIZED'),
      'RATE_LIMIT_EXCEEDED',
    ]);
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl)(redisUrl ? 'with Redis' : 'with Redis (skipped: set TEST_REDIS_URL to run)', () => {
  const keyPrefix = `msr-test:${randomUUID()}`;
  afterAll(async () => {
    const client = createClient({ url: redisUrl });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${keyPrefix}:*`, COUNT: 100 })) if (keys.length) await client.del(keys);
    await client.close();
  });

  it('two instances share the failed-log-in counters: guesses spread over both are limited together', async () => {
    const a = await accountsOn({ redisUrl: redisUrl!, keyPrefix });
    const b = await accountsOn({ redisUrl: redisUrl!, keyPrefix });
    const first = await failures(a, 3);
    const second = await failures(b, LOGIN_LIMITS.perEmailAndIp - 3 + 1);
    expect([...first, ...second]).toEqual([...Array(LOGIN_LIMITS.perEmailAndIp).fill('UNAUTHORIZED'), 'RATE_LIMIT_EXCEEDED']);
  });
});
