import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, parseWebhookUrl, webhookUrlPolicy } from '../../src/domain/webhook-urls';
import {
  crossedThresholds,
  DEFAULT_RETRY_SCHEDULE,
  dueExpiryEvent,
  newWebhookSecret,
  nextAttemptAt,
  signedHeaders,
  thresholdUsage,
} from '../../src/domain/webhooks';
import { parseSecretBoxKey, secretBox } from '../../src/domain/secret-box';

describe('quota thresholds', () => {
  it.each([
    [1000, 0, 799, []],
    [1000, 799, 800, [80]],
    [1000, 0, 1000, [80, 100]],
    [1000, 800, 1000, [100]],
    [1000, 900, 950, []],
    [1000, 1000, 1000, []],
    [3, 0, 3, [80, 100]],
    [3, 2, 3, [80, 100].filter((t) => thresholdUsage(3, t) > 2)],
    [0, 0, 0, []],
  ])('limit %i, from %i to %i crosses %j', (limit, before, after, crossed) => {
    expect(crossedThresholds(limit, before, after)).toEqual(crossed);
  });

  it('the usage at a threshold is ceil(limit × percent / 100)', () => {
    expect([thresholdUsage(1000, 80), thresholdUsage(3, 80), thresholdUsage(7, 100), thresholdUsage(2_000_000, 80)]).toEqual([
      800, 3, 7, 1_600_000,
    ]);
  });
});

describe('expiry events', () => {
  const end = '2026-12-10T12:00:00.000Z';
  it.each([
    ['2026-12-01T12:00:00.000Z', undefined],
    ['2026-12-03T12:00:00.000Z', { type: 'key.expiring', daysBefore: 7 }],
    ['2026-12-09T11:59:59.000Z', { type: 'key.expiring', daysBefore: 7 }],
    ['2026-12-09T12:00:00.000Z', { type: 'key.expiring', daysBefore: 1 }],
    ['2026-12-10T12:00:00.000Z', { type: 'key.expired' }],
    ['2026-12-17T11:00:00.000Z', { type: 'key.expired' }],
    ['2026-12-17T12:00:00.000Z', undefined],
  ])('at %s: %j', (now, due) => {
    expect(dueExpiryEvent(end, new Date(now))).toEqual(due);
  });
});

describe('signatures (Standard Webhooks)', () => {
  it('what signedHeaders makes, the standardwebhooks library verifies, and only with the same secret and id', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: 'quota.threshold', data: { threshold: 80 } });
    const headers = signedHeaders(secret, 'msg_1', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe('retries', () => {
  it('back off exponentially with jitter, capped, and stop a day after the event', () => {
    const created = '2026-11-27T00:00:00.000Z';
    const at = new Date('2026-11-27T00:00:00.000Z');
    const delays = [1, 2, 3, 10, 20].map(
      (n) => (nextAttemptAt(DEFAULT_RETRY_SCHEDULE, n, created, at, () => 1)!.getTime() - at.getTime()) / 1000,
    );
    expect(delays).toEqual([10, 20, 40, 3600, 3600]);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE, 1, created, at, () => 0)!.getTime() - at.getTime()).toBe(5000);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE, 30, created, new Date('2026-11-27T23:30:00.000Z'), () => 1)).toBeUndefined();
  });
});

describe('webhook URLs', () => {
  const production = webhookUrlPolicy('production');
  const development = webhookUrlPolicy('development');
  it('production takes https only; development http too; neither credentials, fragments nor other schemes', () => {
    expect(parseWebhookUrl('https://hooks.example.com/x?y=1', production).href).toBe('https://hooks.example.com/x?y=1');
    expect(() => parseWebhookUrl('http://hooks.example.com/x', production)).toThrow(/must use https:\/\//);
    expect(parseWebhookUrl('http://127.0.0.1:9/x', development).port).toBe('9');
    for (const bad of ['ftp://x/', 'hooks.example.com', 'https://u:p@example.com/', 'https://example.com/#f', 'javascript:alert(1)']) {
      expect(() => parseWebhookUrl(bad, development), bad).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', param: 'url' }));
    }
  });

  it.each([
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['0.0.0.0', false],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::ffff:8.8.8.8', true],
    ['64:ff9b::a00:1', false],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('sealed secrets', () => {
  it('open with the key and the context they were sealed with, and only then', () => {
    const key = parseSecretBoxKey(Buffer.alloc(32, 7).toString('base64'))!;
    const box = secretBox(key);
    const sealed = box.seal('whsec_abc', 'whe_1');
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain('abc');
    expect(box.open(sealed, 'whe_1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'whe_2')).toThrow();
    expect(() => secretBox(Buffer.alloc(32, 8)).open(sealed, 'whe_1')).toThrow();
    expect(parseSecretBoxKey('ab'.repeat(32))).toHaveLength(32);
    expect(parseSecretBoxKey('too short')).toBeUndefined();
  });
});
