import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_ACCOUNT_BOUNDS, type AccountBounds } from './domain/account-bounds';
import { parseTrustProxy } from './domain/client-ip';
import { parseSecretBoxKey } from './domain/secret-box';
import { parseNoProxy, type EgressProxy } from './domain/egress-proxy';
import { rateSourcesSchema, sourceBaseUrlsSchema, sourcesConfigOf, type SourcesConfig } from './config-sources';

/**
 * The whole configuration, read from the environment once at start-up (contract section 1).
 * Nothing else in the code base reads `process.env`.
 */
/**
 * A whole number from `min` to `max`; whatever is wrong with a value (not a number, a fraction, out
 * of range), the message says what is wanted: "must be a whole number from 1 to 1000000" (written
 * as the variable takes it, without separators).
 */
function wholeNumber(min: number, max: number, what = 'a whole number') {
  const error = `must be ${what} from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

const port = wholeNumber(0, 65535, 'a port number');

/** A forward proxy's URL (HTTPS_PROXY, HTTP_PROXY): `http://` or `https://`, a host, optionally a user and password and a port. */
const proxyUrl = z
  .url({ protocol: /^https?$/, error: 'must be a proxy URL such as http://proxy.internal:3128' })
  .refine((value) => new URL(value).hostname !== '', { message: 'must be a proxy URL such as http://proxy.internal:3128' });
const positiveInt = wholeNumber(1, 1_000_000);

const schema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .min(1)
    .refine((url) => /^(postgres(ql)?:\/\/|sqlite:|file:|\.{0,2}\/|[^:]+$)/.test(url), {
      message: 'must be a postgres:// URL or a SQLite file path',
    })
    .refine((url) => !/^postgres(ql)?:\/\//.test(url) || URL.canParse(url), { message: 'is not a valid postgres:// URL' })
    .optional(),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  API_ENV: z.enum(['development', 'production']).default('development'),
  ECB_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://www.ecb.europa.eu/stats/eurofxref'),
  RATES_FILE: z.string().min(1).optional(),
  RATE_SOURCES: rateSourcesSchema,
  ...sourceBaseUrlsSchema,
  TRUST_PROXY: z
    .string()
    .regex(/^(\d{1,2}|[0-9a-fA-F:./]+(\s*,\s*[0-9a-fA-F:./]+)*)$/, 'must be a hop count or a comma list of CIDRs')
    // The same parser the server uses, so a CIDR that only looks right (10.0.0.0/33) stops start-up.
    .superRefine((value, ctx) => {
      try {
        parseTrustProxy(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^TRUST_PROXY /, '') });
      }
    })
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_RATE_LIMIT: positiveInt.default(60),
  KEY_RATE_LIMIT: positiveInt.default(50),
  MAX_CONNECTIONS: positiveInt.default(4096),
  KEEP_ALIVE_TIMEOUT: wholeNumber(1, 3600).optional(),
  WEBHOOK_ENDPOINTS_PER_ACCOUNT: wholeNumber(1, 1000).default(DEFAULT_ACCOUNT_BOUNDS.webhookEndpoints),
  KEYS_PER_ACCOUNT: wholeNumber(1, 100_000).default(DEFAULT_ACCOUNT_BOUNDS.liveKeys),
  EXPORTS_IN_FLIGHT: wholeNumber(1, 1000).default(2),
  WEBHOOK_SWEEP_SECONDS: wholeNumber(1, 3600).default(60),
  EXPORT_CACHE_MB: wholeNumber(0, 65_536).default(48),
  EXPORTS_PER_INSTANCE: wholeNumber(1, 100_000).default(32),
  EXPORT_MEMORY_MB: wholeNumber(1, 65_536).default(128),
  STREAM_PROGRESS_TIMEOUT_SECONDS: z.coerce.number().min(0.05).max(3600).default(30),
  REST_EXECUTION: z.enum(['direct', 'sofa']).optional(),
  /** The former name of REST_EXECUTION (on = direct, off = sofa): still read, with a warning naming the new one. */
  REST_FAST_LANE: z.enum(['on', 'off']).optional(),
  GRAPHIQL: z.enum(['on', 'off']).default('on'),
  COMPRESSION: z.enum(['on', 'off']).default('on'),
  SIGNUP: z.enum(['open', 'closed']).default('open'),
  COOKIE_SECURE: z.enum(['true', 'false']).optional(),
  PERSISTED_DOCUMENTS: z.string().min(1).optional(),
  PERSISTED_DOCUMENTS_TTL_DAYS: wholeNumber(1, 365).default(7),
  PERSISTED_DOCUMENTS_CACHE_MB: wholeNumber(1, 1024).default(4),
  PERSISTED_DOCUMENTS_SHARED_MB: wholeNumber(1, 65_536).default(64),
  PERSISTED_DOCUMENTS_PER_KEY_HOUR: wholeNumber(1, 100_000).default(100),
  MCP_ALLOWED_HOSTS: z
    .string()
    .regex(/^[^\s,]+(\s*,\s*[^\s,]+)*$/, 'must be a comma list of host names')
    .optional(),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .regex(/^https?:\/\/[^\s,]+(\s*,\s*https?:\/\/[^\s,]+)*$/, 'must be a comma list of origins such as https://app.example')
    .optional(),
  WEBHOOK_SECRET_KEY: z
    .string()
    .refine((value) => parseSecretBoxKey(value) !== undefined, {
      message: 'must be 32 bytes as 64 hex digits or base64 (e.g. openssl rand -base64 32)',
    })
    .optional(),
  PUBLIC_ORIGIN: z
    .url({ protocol: /^https?$/ })
    .refine((value) => new URL(value).pathname === '/' && !new URL(value).search && !new URL(value).hash, {
      message: 'must be an origin such as https://api.example (no path, query or fragment)',
    })
    .optional(),
  OAUTH_ISSUER: z
    .url({ protocol: /^https?$/ })
    .refine((value) => new URL(value).pathname === '/' && !new URL(value).search && !new URL(value).hash, {
      message: 'must be an origin such as https://api.example (no path, query or fragment)',
    })
    .optional(),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: wholeNumber(60, 86_400).default(900),
  OAUTH_REFRESH_TOKEN_TTL_DAYS: wholeNumber(1, 365).default(30),
  METRICS: z
    .string()
    .regex(/^(local|off|public|token:[\x21-\x7e]{16,256})$/, 'must be local, off, public or token:<16 to 256 visible characters>')
    .default('local'),
  HTTPS_PROXY: proxyUrl.optional(),
  https_proxy: proxyUrl.optional(),
  HTTP_PROXY: proxyUrl.optional(),
  http_proxy: proxyUrl.optional(),
  NO_PROXY: z.string().optional(),
  no_proxy: z.string().optional(),
});

/** Variables whose value may carry a password in a URL: a bad one is shown with the password as `***`. */
const URL_WITH_PASSWORD_VARIABLES = new Set(['DATABASE_URL', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']);

/** Who may read GET /metrics: loopback clients (`local`), nobody, anyone, or bearers of the token. */
export type MetricsAccess = { mode: 'local' | 'off' | 'public' } | { mode: 'token'; token: string };

/** Variables whose value is a secret: a bad one is named, never shown. */
const SECRET_VARIABLES = new Set(['METRICS', 'WEBHOOK_SECRET_KEY']);

export type Env = z.input<typeof schema>;

/**
 * Every environment variable the server and the CLI read: the schema's, and those only read to warn
 * that they are retired (configWarnings). docs/deploy.md lists each (test/docs/deploy-variables.test.ts).
 */
export const CONFIG_VARIABLES: readonly string[] = [...Object.keys(schema.shape), 'GRAPHQL_EXECUTION'];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** `{kind: 'sqlite', file}` by default; `{kind: 'postgres', url}` for a postgres:// URL. */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  redisUrl: string | undefined;
  apiEnv: 'development' | 'production';
  ecbBaseUrl: string;
  ratesFile: string | undefined;
  /** RATE_SOURCES and the sources' *_BASE_URL: which sources besides the ECB are fetched, and where from. */
  sources: SourcesConfig;
  trustProxy: string | undefined;
  /** PUBLIC_ORIGIN (else OAUTH_ISSUER's origin): the origin clients reach the server at, which signed links are made on. */
  publicOrigin: string | undefined;
  logLevel: string;
  /** Requests a minute per client IP on public routes. */
  publicRateLimit: number;
  /** Requests a second per API key on keyed routes. */
  keyRateLimit: number;
  /** MAX_CONNECTIONS: open client connections at most; the next ones get a 503 and are closed. */
  maxConnections: number;
  /** KEEP_ALIVE_TIMEOUT: seconds an idle keep-alive connection stays open (the HTTP server's default when not set). */
  keepAliveTimeoutSeconds?: number;
  /** WEBHOOK_ENDPOINTS_PER_ACCOUNT and KEYS_PER_ACCOUNT: what one account may hold (more is refused with INVALID_REQUEST). */
  accountBounds: AccountBounds;
  /**
   * WEBHOOK_SWEEP_SECONDS: the outbox's safety net. The dispatcher is woken by the events this process
   * writes (and, on PostgreSQL, by every instance's through NOTIFY); an event another process writes
   * into a SQLite file (the CLI, a test) is seen at the next sweep at the latest.
   */
  webhookSweepMs: number;
  /** EXPORTS_IN_FLIGHT: series exports one key may have in flight on an instance at once; the next gets 429. */
  exportsInFlight: number;
  /** EXPORT_CACHE_MB, in bytes: how much this instance keeps of complete series pages as written (0: none). */
  exportCacheBytes: number;
  /** EXPORTS_PER_INSTANCE: series exports this instance computes or sends at once, whatever their keys; the next gets 503. */
  exportsPerInstance: number;
  /** EXPORT_MEMORY_MB, in bytes: what the exports in flight on this instance may hold at once (each counted at its estimate); the next gets 503. */
  exportMemoryBytes: number;
  /** STREAM_PROGRESS_TIMEOUT_SECONDS, in ms: a client of a streamed answer that takes nothing for this long has its connection closed. */
  streamProgressTimeoutMs: number;
  /** REST_EXECUTION: how a REST route's field is executed, its resolver called directly or SOFA through Yoga. */
  restExecution: RestExecution;
  /** COMPRESSION: gzip and Brotli by Accept-Encoding (`on`); `off` sends every answer as it is, for a proxy in front that compresses. */
  compression: boolean;
  /** GRAPHIQL: GraphiQL at GET /graphql and its assets; off answers 404 for them. */
  graphiql: boolean;
  /** SIGNUP: whether the account page lets anyone create an account (`open`) or only the CLI can (`closed`). */
  signup: 'open' | 'closed';
  /**
   * COOKIE_SECURE: `true` always marks the session cookie Secure; `false` never does; unset (auto)
   * marks it Secure when the request came over TLS (directly, or as a trusted proxy's X-Forwarded-Proto says).
   */
  cookieSecure: boolean | 'auto';
  /** METRICS: who may read GET /metrics. */
  metrics: MetricsAccess;
  /** Persisted GraphQL documents (Apollo's APQ): the operator's manifest and the bounds of registrations. */
  persistedDocuments: PersistedDocumentsConfig;
  /**
   * MCP_ALLOWED_HOSTS: the host names /mcp answers (DNS rebinding protection). Unset: the loopback
   * names when HOST is a loopback address, else any host (a server behind a public name should set it).
   */
  mcpAllowedHosts: readonly string[] | undefined;
  /** MCP_ALLOWED_ORIGINS: browser origins allowed to call /mcp; a request with another Origin is refused. None by default. */
  mcpAllowedOrigins: readonly string[];
  /**
   * WEBHOOK_SECRET_KEY: the AES-256-GCM key that seals webhook signing secrets at rest, and from which
   * the signing key of series links is derived (HKDF, a label of its own). Production
   * never keeps it on disk (without it, webhooks cannot be added or signed); in development, absent, a key file in
   * DATA_DIR (webhook-secret.key, mode 0600) is made on first use.
   */
  webhookSecretKey: Buffer | undefined;
  /** OAuth 2.1 for agents on /mcp (docs/mcp.md); undefined when OAUTH_ISSUER is not set (API keys only). */
  oauth: OAuthConfig | undefined;
  /**
   * HTTPS_PROXY, HTTP_PROXY and NO_PROXY (the lower-case form of each wins over the upper-case one):
   * the forward proxy of every outbound request (rates, webhooks, client metadata documents).
   */
  egressProxy: EgressProxy;
}

export interface OAuthConfig {
  /** OAUTH_ISSUER: the server's public origin, the authorization server's issuer; /mcp under it is the one resource its tokens are for. */
  issuer: string;
  /** OAUTH_ACCESS_TOKEN_TTL_SECONDS: how long an access token works (900 by default). */
  accessTokenSeconds: number;
  /** OAUTH_REFRESH_TOKEN_TTL_DAYS: how long an unused refresh token works (30 by default); each use replaces it. */
  refreshTokenSeconds: number;
}

export interface PersistedDocumentsConfig {
  /** PERSISTED_DOCUMENTS: the manifest file (hash → document); by default schema/persisted-documents.json, when present. */
  manifestFile: string;
  /** True when PERSISTED_DOCUMENTS names the file: then a missing file stops start-up; the default file may be absent. */
  manifestRequired: boolean;
  /** PERSISTED_DOCUMENTS_TTL_DAYS, in seconds: how long Redis keeps a registered document. */
  ttlSeconds: number;
  /** PERSISTED_DOCUMENTS_CACHE_MB, in bytes: what an instance keeps of registered documents in memory. */
  cacheBytes: number;
  /** PERSISTED_DOCUMENTS_SHARED_MB, in bytes: what the registered documents take in Redis at most (least recently used out first). */
  sharedBytes: number;
  /** PERSISTED_DOCUMENTS_PER_KEY_HOUR: new documents one key (or client IP) may register per hour. */
  registrationsPerHour: number;
}

/** The manifest read when PERSISTED_DOCUMENTS is not set (relative to the working directory), if it exists. */
export const DEFAULT_PERSISTED_DOCUMENTS = 'schema/persisted-documents.json';

export type RestExecution = 'direct' | 'sofa';

/** Warnings about the configuration that start-up logs: variables read under a former name, and variables no longer read. */
export function configWarnings(env: Record<string, string | undefined>): string[] {
  const warnings: string[] = [];
  if (env['REST_FAST_LANE'] !== undefined && env['REST_FAST_LANE'] !== '') {
    const replacement = env['REST_FAST_LANE'] === 'off' ? 'sofa' : 'direct';
    const used = env['REST_EXECUTION']
      ? `REST_EXECUTION=${env['REST_EXECUTION']} is used instead`
      : `read as REST_EXECUTION=${replacement}`;
    warnings.push(`REST_FAST_LANE is a former name: set REST_EXECUTION=direct|sofa instead (${used}).`);
  }
  if (env['API_ENV'] === 'production' && !env['PUBLIC_ORIGIN'] && !env['OAUTH_ISSUER']) {
    warnings.push(
      'PUBLIC_ORIGIN is not set: signed links are answered as a path and query, without an origin; set PUBLIC_ORIGIN=https://<the origin clients use>.',
    );
  }
  if (env['GRAPHQL_EXECUTION'] !== undefined && env['GRAPHQL_EXECUTION'] !== '') {
    warnings.push(
      'GRAPHQL_EXECUTION is no longer read: every GraphQL request is answered by the front and run by its executor; remove it.',
    );
  }
  return warnings;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment; throws a ConfigError whose one-line message names the bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    const got = SECRET_VARIABLES.has(name)
      ? 'value not shown'
      : URL_WITH_PASSWORD_VARIABLES.has(name)
        ? `got ${JSON.stringify(redactPassword(present[name] ?? ''))}`
        : `got ${JSON.stringify(present[name] ?? '')}`;
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message.replace(/^Invalid input: /, '').toLowerCase()} (${got})`);
  }
  const e = parsed.data;
  if (e.API_ENV === 'production' && e.PUBLIC_ORIGIN?.startsWith('http:')) {
    throw new ConfigError(
      `Invalid configuration: PUBLIC_ORIGIN must use https:// with API_ENV=production (got ${JSON.stringify(e.PUBLIC_ORIGIN)})`,
    );
  }
  if (e.API_ENV === 'production' && e.OAUTH_ISSUER?.startsWith('http:')) {
    throw new ConfigError(
      `Invalid configuration: OAUTH_ISSUER must use https:// with API_ENV=production (got ${JSON.stringify(e.OAUTH_ISSUER)})`,
    );
  }
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    database: databaseOf(e.DATABASE_URL, dataDir),
    redisUrl: e.REDIS_URL,
    apiEnv: e.API_ENV,
    ecbBaseUrl: e.ECB_BASE_URL.replace(/\/+$/, ''),
    ratesFile: e.RATES_FILE === undefined ? undefined : path.resolve(e.RATES_FILE),
    sources: sourcesConfigOf(e),
    trustProxy: e.TRUST_PROXY,
    publicOrigin: publicOriginOf(e.PUBLIC_ORIGIN ?? e.OAUTH_ISSUER),
    logLevel: e.LOG_LEVEL,
    publicRateLimit: e.PUBLIC_RATE_LIMIT,
    keyRateLimit: e.KEY_RATE_LIMIT,
    maxConnections: e.MAX_CONNECTIONS,
    keepAliveTimeoutSeconds: e.KEEP_ALIVE_TIMEOUT,
    accountBounds: { webhookEndpoints: e.WEBHOOK_ENDPOINTS_PER_ACCOUNT, liveKeys: e.KEYS_PER_ACCOUNT },
    exportsInFlight: e.EXPORTS_IN_FLIGHT,
    webhookSweepMs: e.WEBHOOK_SWEEP_SECONDS * 1000,
    exportCacheBytes: e.EXPORT_CACHE_MB * 1024 * 1024,
    exportsPerInstance: e.EXPORTS_PER_INSTANCE,
    exportMemoryBytes: e.EXPORT_MEMORY_MB * 1024 * 1024,
    streamProgressTimeoutMs: Math.round(e.STREAM_PROGRESS_TIMEOUT_SECONDS * 1000),
    restExecution: e.REST_EXECUTION ?? (e.REST_FAST_LANE === 'off' ? 'sofa' : 'direct'),
    compression: e.COMPRESSION === 'on',
    graphiql: e.GRAPHIQL === 'on',
    signup: e.SIGNUP,
    cookieSecure: e.COOKIE_SECURE === undefined ? 'auto' : e.COOKIE_SECURE === 'true',
    persistedDocuments: {
      manifestFile: path.resolve(e.PERSISTED_DOCUMENTS ?? DEFAULT_PERSISTED_DOCUMENTS),
      manifestRequired: e.PERSISTED_DOCUMENTS !== undefined,
      ttlSeconds: e.PERSISTED_DOCUMENTS_TTL_DAYS * 24 * 3600,
      cacheBytes: e.PERSISTED_DOCUMENTS_CACHE_MB * 1024 * 1024,
      sharedBytes: e.PERSISTED_DOCUMENTS_SHARED_MB * 1024 * 1024,
      registrationsPerHour: e.PERSISTED_DOCUMENTS_PER_KEY_HOUR,
    },
    mcpAllowedHosts: e.MCP_ALLOWED_HOSTS === undefined ? loopbackHosts(e.HOST) : commaList(e.MCP_ALLOWED_HOSTS),
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS === undefined ? [] : commaList(e.MCP_ALLOWED_ORIGINS),
    webhookSecretKey: e.WEBHOOK_SECRET_KEY === undefined ? undefined : parseSecretBoxKey(e.WEBHOOK_SECRET_KEY),
    oauth: oauthOf(e),
    egressProxy: {
      httpsProxy: e.https_proxy ?? e.HTTPS_PROXY,
      httpProxy: e.http_proxy ?? e.HTTP_PROXY,
      noProxy: parseNoProxy(e.no_proxy ?? e.NO_PROXY ?? ''),
    },
    metrics: e.METRICS.startsWith('token:')
      ? { mode: 'token', token: e.METRICS.slice('token:'.length) }
      : { mode: e.METRICS as 'local' | 'off' | 'public' },
  };
}

/** OAuth for agents: on only with OAUTH_ISSUER. */
function oauthOf(e: z.infer<typeof schema>): Config['oauth'] {
  if (e.OAUTH_ISSUER === undefined) return undefined;
  return {
    issuer: new URL(e.OAUTH_ISSUER).origin,
    accessTokenSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenSeconds: e.OAUTH_REFRESH_TOKEN_TTL_DAYS * 86_400,
  };
}

function publicOriginOf(url: string | undefined): string | undefined {
  return url === undefined ? undefined : new URL(url).origin;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/** The names a loopback-bound server is reached by; undefined (any host) when HOST is not loopback. */
function loopbackHosts(host: string): readonly string[] | undefined {
  return host === 'localhost' || host === '::1' || /^127\./.test(host) ? LOOPBACK_HOSTS : undefined;
}

function commaList(text: string): string[] {
  return text.split(',').map((item) => item.trim());
}

function databaseOf(url: string | undefined, dataDir: string): Config['database'] {
  if (url === undefined) return { kind: 'sqlite', file: path.join(dataDir, 'measurement.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'postgres', url };
  return { kind: 'sqlite', file: path.resolve(url.replace(/^(sqlite|file):(\/\/)?/, '')) };
}

/** A database URL as it may be shown: whatever sits between `//user:` and `@` becomes `***` (also in a URL that does not parse). */
function redactPassword(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*:)[^@]*@/i, '$1***@');
}
