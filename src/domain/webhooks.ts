import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/**
 * Alerts as Standard Webhooks (standardwebhooks.com): the events an account is told about, when
 * each is due, its identity (what makes it happen once), and the signature. Pure: clocks and random
 * sources are arguments where they matter.
 */

export type WebhookEventType = 'quota.threshold' | 'key.expiring' | 'key.expired';

/** Percentages of the monthly quota whose crossing is an event. */
export const QUOTA_THRESHOLDS = [80, 100] as const;
export type QuotaThreshold = (typeof QUOTA_THRESHOLDS)[number];

/** Days before a key's end at which `key.expiring` is sent. */
export const EXPIRY_NOTICES = [7, 1] as const;
export type ExpiryNotice = (typeof EXPIRY_NOTICES)[number];

const DAY_MS = 86_400_000;

/** How far back the expiry scan looks for keys that ended (a dispatcher that was down that long still sends `key.expired`). */
export const EXPIRED_LOOKBACK_MS = 7 * DAY_MS;

/**
 * The usage at which `percent` of `limit` is reached: ceil(limit × percent / 100), in integers (the
 * PostgreSQL charge computes the same as `(limit * percent + 99) / 100`).
 */
export function thresholdUsage(limit: number, percent: number): number {
  return Math.floor((limit * percent + 99) / 100);
}

/** The thresholds a charge that took the month's usage from `before` to `after` crossed (none for a limit of 0). */
export function crossedThresholds(limit: number, before: number, after: number): QuotaThreshold[] {
  if (limit <= 0) return [];
  return QUOTA_THRESHOLDS.filter((percent) => {
    const at = thresholdUsage(limit, percent);
    return before < at && after >= at;
  });
}

/** What makes a quota event happen once: the account, the month and the threshold. */
export function quotaEventIdentity(accountId: string, month: string, threshold: QuotaThreshold): string {
  return `quota.threshold:${accountId}:${month}:${threshold}`;
}

export interface QuotaThresholdData {
  accountId: string;
  threshold: QuotaThreshold;
  /** The month's usage right after the crossing charge. */
  used: number;
  limit: number;
  /** The quota period, the UTC month `YYYY-MM`. */
  period: string;
}

export interface KeyExpiryData {
  accountId: string;
  keyId: string;
  /** When the key stops working (ISO 8601 UTC). */
  expiresAt: string;
  /** key.expiring: the notice, 7 or 1 days before the end. */
  daysBefore?: ExpiryNotice;
}

/** The event a key ending at `expiresAt` is due now, if any: expired once past its end, else the nearest notice whose time has come. */
export function dueExpiryEvent(
  expiresAt: string,
  now: Date,
): { type: 'key.expiring'; daysBefore: ExpiryNotice } | { type: 'key.expired' } | undefined {
  const left = Date.parse(expiresAt) - now.getTime();
  if (Number.isNaN(left)) return undefined;
  if (left <= 0) return left > -EXPIRED_LOOKBACK_MS ? { type: 'key.expired' } : undefined;
  if (left <= DAY_MS) return { type: 'key.expiring', daysBefore: 1 };
  if (left <= 7 * DAY_MS) return { type: 'key.expiring', daysBefore: 7 };
  return undefined;
}

/** What makes an expiry event happen once: the key, its end (a new end is a new moment) and the notice. */
export function expiryEventIdentity(
  keyId: string,
  expiresAt: string,
  event: { type: 'key.expiring'; daysBefore: ExpiryNotice } | { type: 'key.expired' },
): string {
  return event.type === 'key.expired' ? `key.expired:${keyId}:${expiresAt}` : `key.expiring:${keyId}:${expiresAt}:${event.daysBefore}d`;
}

/** A message id (`webhook-id`): the same for every attempt and every endpoint of one event. */
export function newEventId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

/** An endpoint id such as `whe_3f9c…` (96 random bits). */
export function newEndpointId(): string {
  return `whe_${randomBytes(12).toString('hex')}`;
}

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 24;

/** A new signing secret: `whsec_` and the base64 of 24 random bytes. */
export function newWebhookSecret(random: (n: number) => Buffer = randomBytes): string {
  return SECRET_PREFIX + random(SECRET_BYTES).toString('base64');
}

/** The HMAC key a `whsec_…` secret stands for: the base64-decoded part after the prefix. */
export function secretKeyBytes(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new TypeError('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** The body every delivery of an event carries, byte for byte. */
export function eventBody(type: WebhookEventType, createdAt: string, data: unknown): string {
  return JSON.stringify({ type, timestamp: createdAt, data });
}

/** The Standard Webhooks headers for one attempt: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`. */
export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac('sha256', secretKeyBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export interface RetrySchedule {
  /** The first retry's delay (default 10 s); each next one doubles, up to maxDelayMs. */
  baseDelayMs: number;
  /** The longest delay between two attempts (default 1 h). */
  maxDelayMs: number;
  /** After this long since the event, a delivery that still fails is marked failed (default 24 h). */
  giveUpAfterMs: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseDelayMs: 10_000, maxDelayMs: 3_600_000, giveUpAfterMs: DAY_MS };

/**
 * When to try again after failed attempt number `attempts` (1 for the first), or undefined when
 * the event is older than the schedule gives it: exponential backoff with jitter (half the delay
 * fixed, half random), so endpoints that fail together do not come back together.
 */
export function nextAttemptAt(
  schedule: RetrySchedule,
  attempts: number,
  eventCreatedAt: string,
  now: Date,
  random: () => number = Math.random,
): Date | undefined {
  const exponential = Math.min(schedule.maxDelayMs, schedule.baseDelayMs * 2 ** Math.min(attempts - 1, 30));
  const delay = exponential / 2 + (random() * exponential) / 2;
  const next = now.getTime() + delay;
  return next - Date.parse(eventCreatedAt) > schedule.giveUpAfterMs ? undefined : new Date(next);
}
