import { createHash } from 'node:crypto';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { Account, AccountStore, DailyUsage, KeyListing } from './account-store';
import { canonicalEmail, normalizeEmail } from './account-store';
import type { AccountBounds } from '../domain/account-bounds';
import { ApiError } from '../domain/errors';
import { keyEnvFor, type KeyEnv } from '../domain/keys';
import { checkPasswordPolicy, decoyHash, hashPassword, verifyPassword } from '../domain/passwords';
import type { PlanId } from '../domain/plans';
import { currentMonth } from '../domain/quota';
import {
  csrfTokenFor,
  isSessionToken,
  newSessionToken,
  openFlash,
  sealFlash,
  sessionExpiry,
  sessionTokenHash,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  SESSION_TOUCH_MS,
} from '../domain/sessions';
import { usageReport } from './usage';
import type { WebhookEndpointListing, Webhooks } from './webhooks';

/** Failed log-ins allowed per email and client IP, and per client IP, in LOGIN_WINDOW_SECONDS. */
export const LOGIN_LIMITS = { perEmailAndIp: 5, perIp: 20, windowSeconds: 15 * 60 } as const;
/** Accounts one client IP may create per hour. */
export const SIGNUP_LIMIT = { perIp: 5, windowSeconds: 60 * 60 } as const;

export interface AccountSession {
  account: Account;
  /** The cookie's token: needed to derive the CSRF token and to open the one-time message. */
  token: string;
  csrf: string;
}

/** What the page shows once after a redirect: a notice, and a new key when one was made. */
export interface Flash {
  notice: string;
  newKey?: { key: string; id: string; env: KeyEnv; expiresAt?: string | null };
  /** A webhook endpoint just added, with its signing secret (shown this once). */
  newWebhook?: { id: string; url: string; secret: string };
}

/** How many UTC days of usage the page draws, today included. */
export const CHART_DAYS = 30;

export interface AccountOverview {
  plan: PlanId;
  usage: { used: number; limit: number; remaining: number; month: string; resetsAt: string };
  /** The last CHART_DAYS UTC days, oldest first, today last (days without usage count zeros). */
  days: DailyUsage[];
  keys: KeyListing[];
  /** The account's webhook endpoints with their latest deliveries and failures. */
  webhooks: WebhookEndpointListing[];
  /** The key environment this server accepts. */
  serverEnv: KeyEnv;
  /** What the account may hold: webhook endpoints and live keys. */
  bounds: AccountBounds;
  /** The clock's time when the overview was read (ISO 8601 UTC): what "expired" is judged against. */
  now: string;
}

export interface Credentials {
  email: string;
  password: string;
}

export interface Accounts {
  readonly signupOpen: boolean;
  readonly serverEnv: KeyEnv;
  /**
   * Creates a free account and logs it in; for an email that has an account, logs that account in when
   * the password is its own, else UNAUTHORIZED naming no account. FORBIDDEN when SIGNUP=closed;
   * INVALID_REQUEST; RATE_LIMIT_EXCEEDED.
   */
  signUp(credentials: Credentials, clientBucket: string, previousToken?: string): Promise<string>;
  /** A new session token (never the old one: no fixation). UNAUTHORIZED without saying which part was wrong. */
  logIn(credentials: Credentials, clientBucket: string, previousToken?: string): Promise<string>;
  logOut(token: string | undefined): Promise<void>;
  /** The valid session of this cookie token, or why there is none. */
  session(token: string | undefined): Promise<AccountSession | 'expired' | undefined>;
  overview(account: Account): Promise<AccountOverview>;
  /** A key of this account (NOT_FOUND for anyone else's). */
  keyOf(session: AccountSession, keyId: string): Promise<KeyListing>;
  /** `expiresAt` (ISO 8601 UTC) ends the key; null: never. */
  createKey(session: AccountSession, env: KeyEnv, expiresAt: string | null): Promise<void>;
  /** A new key replaces this one, which stops at once (`graceMs` 0) or works on for `graceMs` (at most 7 days). */
  rotateKey(session: AccountSession, keyId: string, graceMs: number): Promise<void>;
  /** The clock's time (forms that offer times in the future, such as rotation's graces, show ends from it). */
  now(): Date;
  revokeKey(session: AccountSession, keyId: string): Promise<void>;
  /** An endpoint of this account (NOT_FOUND for anyone else's). */
  webhookOf(session: AccountSession, endpointId: string): Promise<WebhookEndpointListing>;
  /** Adds an endpoint (INVALID_REQUEST for a URL the server refuses); its secret is in the next page's message only. */
  addWebhook(session: AccountSession, url: string): Promise<void>;
  removeWebhook(session: AccountSession, endpointId: string): Promise<void>;
  /** The one-time message, deleted as it is read. */
  takeFlash(session: AccountSession): Promise<Flash | undefined>;
  /** Sets a password (the operator CLI) and ends every session of the account. */
  setPassword(email: string, password: string): Promise<Account>;
}

export interface AccountsDeps {
  config: Config;
  store: AccountStore;
  webhooks: Webhooks;
  clock: () => Date;
  /** Builds the failed-log-in and sign-up limiters (memory, or Redis with REDIS_URL). */
  limiter(name: string, points: number, windowSeconds: number): RateLimiterAbstract;
}

/**
 * The account page's use cases; the page layer only parses forms and renders. Two groups: signing
 * in and out (sessions, guarded by the log-in and sign-up limiters) and the signed-in page (usage,
 * keys, the one-time message).
 */
export function createAccounts(deps: AccountsDeps): Accounts {
  const serverEnv = keyEnvFor(deps.config.apiEnv);
  return {
    signupOpen: deps.config.signup === 'open',
    serverEnv,
    ...signingIn(deps),
    ...accountPageCases(deps, serverEnv),
    ...webhookCases(deps),
    setPassword: (email, password) => setAccountPassword(deps.store, email, password),
  };
}

/** Sign-up, log-in and log-out, and the session a cookie's token stands for. */
function signingIn({ config, store, clock, limiter }: AccountsDeps): Pick<Accounts, 'signUp' | 'logIn' | 'logOut' | 'session'> {
  const failedByEmailAndIp = limiter('login-email-ip', LOGIN_LIMITS.perEmailAndIp, LOGIN_LIMITS.windowSeconds);
  const failedByIp = limiter('login-ip', LOGIN_LIMITS.perIp, LOGIN_LIMITS.windowSeconds);
  const signupsByIp = limiter('signup-ip', SIGNUP_LIMIT.perIp, SIGNUP_LIMIT.windowSeconds);

  const startSession = async (accountId: string, previousToken: string | undefined) => {
    if (isSessionToken(previousToken)) await store.deleteSession(sessionTokenHash(previousToken));
    // Sessions that expired without a log-out are swept here, so the table holds only live ones.
    const t = clock().getTime();
    await store.deleteExpiredSessions(new Date(t - SESSION_ABSOLUTE_MS).toISOString(), new Date(t - SESSION_IDLE_MS).toISOString());
    const token = newSessionToken();
    await store.createSession(sessionTokenHash(token), accountId, clock().toISOString());
    return token;
  };

  /**
   * The account these credentials open, else `refusal`. Both failed-log-in counters are spent before
   * the password is checked (atomically, so parallel guesses count too); a success gives the points
   * back. So they count failed attempts, wherever the credentials were sent from.
   */
  const openedAccount = async ({ email, password }: Credentials, clientBucket: string, refusal: () => ApiError) => {
    const pairKey = createHash('sha256')
      .update(`${canonicalEmail(email)}\n${clientBucket}`)
      .digest('hex');
    await spend(failedByIp, clientBucket, 'Too many failed log-ins from your address');
    await spend(failedByEmailAndIp, pairKey, 'Too many failed log-ins for this email from your address');
    const found = password.length <= 1024 ? await store.findCredentials(email) : undefined;
    const ok = found?.passwordHash
      ? await verifyPassword(found.passwordHash, password)
      : (await verifyPassword(await decoyHash(), password), false);
    if (!found || !ok) throw refusal();
    await failedByEmailAndIp.delete(pairKey);
    await failedByIp.reward(clientBucket, 1);
    return found.account;
  };

  return {
    async signUp({ email, password }, clientBucket, previousToken) {
      if (config.signup !== 'open') throw new ApiError('FORBIDDEN', 'Sign-up is closed on this server; ask the operator for an account.');
      const normalized = normalizeEmail(email);
      checkPasswordPolicy(password);
      await spend(signupsByIp, clientBucket, 'Too many accounts were created from your address');
      const account = await newAccount(store, normalized, password);
      // A taken email answers as a new one would when the password is its own (a log-in), and names no account otherwise.
      return startSession(
        (account ?? (await openedAccount({ email: normalized, password }, clientBucket, signUpRefusal))).id,
        previousToken,
      );
    },
    async logIn(credentials, clientBucket, previousToken) {
      const account = await openedAccount(
        credentials,
        clientBucket,
        () => new ApiError('UNAUTHORIZED', `The email or the password is wrong.${config.signup === 'open' ? ` ${NO_ACCOUNT_YET}` : ''}`),
      );
      return startSession(account.id, previousToken);
    },
    async logOut(token) {
      if (isSessionToken(token)) await store.deleteSession(sessionTokenHash(token));
    },
    async session(token) {
      if (!isSessionToken(token)) return undefined;
      const hash = sessionTokenHash(token);
      const record = await store.findSession(hash);
      if (!record) return undefined;
      const at = clock();
      if (sessionExpiry(record, at)) {
        await store.deleteSession(hash);
        return 'expired';
      }
      const account = await store.findAccountById(record.accountId);
      if (!account) return undefined;
      if (at.getTime() - Date.parse(record.lastSeenAt) >= SESSION_TOUCH_MS) await store.touchSession(hash, at.toISOString());
      return { account, token, csrf: csrfTokenFor(token) };
    },
  };
}

/** What a signed-in account does on its page: its usage and keys, and the message left for the next page. */
function accountPageCases(
  { config, store, clock, webhooks }: AccountsDeps,
  serverEnv: KeyEnv,
): Pick<Accounts, 'overview' | 'now' | 'keyOf' | 'createKey' | 'rotateKey' | 'revokeKey' | 'takeFlash'> {
  const ownKey = async (session: AccountSession, keyId: string) => {
    const key = (await store.listKeys(session.account.id)).find((k) => k.id === keyId);
    if (!key) throw new ApiError('NOT_FOUND', `Your account has no key '${keyId.slice(0, 40)}'.`, { param: 'id' });
    return key;
  };

  const setFlash = (session: AccountSession, flash: Flash) => flashFor(store, session, flash);

  return {
    async overview(account) {
      const at = clock();
      const [{ quota, days }, keys, endpoints] = await Promise.all([
        usageReport(store, account, at),
        store.listKeys(account.id),
        webhooks.list(account.id),
      ]);
      return {
        plan: account.plan,
        usage: { used: quota.used, limit: quota.limit, remaining: quota.remaining, month: currentMonth(at), resetsAt: quota.reset },
        days: days.slice(-CHART_DAYS),
        keys,
        webhooks: endpoints,
        serverEnv,
        bounds: config.accountBounds,
        now: at.toISOString(),
      };
    },
    now: clock,
    keyOf: ownKey,
    async createKey(session, env, expiresAt) {
      const { key, record } = await store.createKey(session.account.id, env, expiresAt, config.accountBounds.liveKeys);
      const warning = env === serverEnv ? '' : ` It is a ${env} key: this server accepts only ${serverEnv} keys, so it will not work here.`;
      await setFlash(session, {
        notice: `Key ${record.id} created.${warning}`,
        newKey: { key, id: record.id, env, expiresAt: record.expiresAt },
      });
    },
    async rotateKey(session, keyId, graceMs) {
      const old = await ownKey(session, keyId);
      const graceEndsAt = graceMs === 0 ? undefined : new Date(clock().getTime() + graceMs).toISOString();
      const { key, record, replaced } = await store.rotateKey(old.id, graceEndsAt);
      const fate =
        replaced.revokedAt === null && replaced.expiresAt !== null
          ? `keeps working until ${utcMinute(replaced.expiresAt)}, then stops`
          : 'is revoked now';
      await setFlash(session, {
        notice: `Key ${old.id} was rotated and ${fate}; its replacement is ${record.id}.`,
        newKey: { key, id: record.id, env: record.env, expiresAt: record.expiresAt },
      });
    },
    async revokeKey(session, keyId) {
      const key = await ownKey(session, keyId);
      const { alreadyRevoked } = await store.revokeKey(key.id);
      await setFlash(session, {
        notice: alreadyRevoked ? `Key ${key.id} was already revoked.` : `Key ${key.id} is revoked: it no longer works.`,
      });
    },
    async takeFlash(session) {
      const sealed = await store.takeSessionFlash(sessionTokenHash(session.token));
      const text = sealed === null ? undefined : openFlash(session.token, sealed);
      return text === undefined ? undefined : (JSON.parse(text) as Flash);
    },
  };
}

/** The account's webhook endpoints on its page: add (the secret goes into the one-time message), look up, remove. */
function webhookCases({ store, webhooks }: AccountsDeps): Pick<Accounts, 'webhookOf' | 'addWebhook' | 'removeWebhook'> {
  const own = async (session: AccountSession, endpointId: string) => {
    const endpoint = (await webhooks.list(session.account.id)).find((e) => e.id === endpointId);
    if (!endpoint) throw new ApiError('NOT_FOUND', `Your account has no webhook endpoint '${endpointId.slice(0, 40)}'.`, { param: 'id' });
    return endpoint;
  };
  return {
    webhookOf: own,
    async addWebhook(session, url) {
      const { endpoint, secret } = await webhooks.add({ accountId: session.account.id, url });
      await flashFor(store, session, {
        notice: `Webhook endpoint ${endpoint.id} added for ${endpoint.url}.`,
        newWebhook: { id: endpoint.id, url: endpoint.url, secret },
      });
    },
    async removeWebhook(session, endpointId) {
      const endpoint = await own(session, endpointId);
      await webhooks.remove(session.account.id, endpoint.id);
      await flashFor(store, session, { notice: `Webhook endpoint ${endpoint.id} (${endpoint.url}) is removed: it gets no more events.` });
    },
  };
}

/** Leaves the session's one-time message, sealed under its token (it may hold a key or a signing secret). */
function flashFor(store: AccountStore, session: AccountSession, flash: Flash): Promise<void> {
  return store.setSessionFlash(sessionTokenHash(session.token), sealFlash(session.token, JSON.stringify(flash)));
}

/**
 * Gives the account with this email a new password and ends all its sessions (the page's service
 * and the operator CLI's `account password`). INVALID_REQUEST for a password outside the policy,
 * NOT_FOUND for an unknown email.
 */
export async function setAccountPassword(store: AccountStore, email: string, password: string): Promise<Account> {
  checkPasswordPolicy(password);
  const account = await store.findAccountByEmail(email);
  if (!account) throw new ApiError('NOT_FOUND', `No account has the email '${canonicalEmail(email)}'.`, { param: 'email' });
  await store.setPasswordHash(account.id, await hashPassword(password));
  return account;
}

/** An instant as the page writes it: `2026-11-27 06:31 UTC` (seconds dropped). */
export function utcMinute(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * A refused log-in's next step where sign-up is open: the same words whether the email has an account
 * or not, so they say nothing of it.
 */
export const NO_ACCOUNT_YET = 'New here? Create an account with Sign up: Log in opens only an account you have made.';

/** A sign-up with an email that has an account, under a password that is not its own: it says nothing of the account. */
const signUpRefusal = () =>
  new ApiError('UNAUTHORIZED', 'No account was made with this email and password. To use an account you have, log in with its password.');

/** A new free account with this email and password, or undefined when the email has one already. */
async function newAccount(store: AccountStore, email: string, password: string): Promise<Account | undefined> {
  if (await store.findAccountByEmail(email)) return undefined;
  const passwordHash = await hashPassword(password);
  try {
    return await store.createAccount({ email, plan: 'free', passwordHash });
  } catch (error) {
    // Made by a parallel request since the look-up.
    if (error instanceof ApiError && error.param === 'email' && (await store.findAccountByEmail(email))) return undefined;
    throw error;
  }
}

/** One point of `limiter` for `bucket`, or RATE_LIMIT_EXCEEDED with Retry-After and a readable wait. */
async function spend(limiter: RateLimiterAbstract, bucket: string, what: string): Promise<void> {
  try {
    await limiter.consume(bucket);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    const wait = seconds >= 120 ? `${Math.ceil(seconds / 60)} minutes` : `${seconds} seconds`;
    throw new ApiError('RATE_LIMIT_EXCEEDED', `${what}. Please wait ${wait} and try again.`, { retryAfterSeconds: seconds });
  }
}
