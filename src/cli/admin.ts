import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config';
import { DatabaseStartError, migrateDatabase, type DatabaseMigration } from '../data/open-store';
import { EcbFetchError, RatesSourceError } from '../data/rates';
import type { Account, AccountStore } from '../services/account-store';
import { createWebhooks, type Webhooks } from '../services/webhooks';
import { webhookSecretBox } from '../data/webhook-secret-key';
import { resolveHost } from '../data/guarded-connection';
import type { SecretBox } from '../domain/secret-box';
import { webhookUrlPolicy } from '../domain/webhook-urls';
import { ApiError } from '../domain/errors';
import { quoteInput } from '../domain/quote-input';
import { keyEnvFor, type KeyEnv } from '../domain/keys';
import { PLAN_IDS, isPlanId, type PlanId } from '../domain/plans';
import { parseGrace, parseKeyExpiry } from '../domain/key-lifetime';
import { currentMonth } from '../domain/quota';
import { usageReport } from '../services/usage';
import { setAccountPassword } from '../services/accounts';
import { listAccountKeys, showAccount } from './account-listings';
import type { ImportReport, RatesService } from '../services/currency/rates';
import type { SourceRatesService } from '../services/currency/source-rates';
import { SOURCE_IDS } from '../domain/sources/types';
import { importSourceFile, sourceOptionOf } from './source-import';

/**
 * The operator CLI (contract section 8). Each command prints one JSON line on stdout; a failure
 * prints one JSON line `{"error": {code, message}}` on stderr and exits 1, or 2 when the command
 * line itself is wrong (then the usage text follows on stderr). `scripts/admin.ts` only wires this
 * to the process, so tests run it in-process.
 */
export interface AdminDeps {
  config: Config;
  store: AccountStore;
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
  /**
   * Reads all of standard input (for `account password`); undefined when stdin is a terminal,
   * where a typed password would be echoed.
   */
  stdin?: () => Promise<string | undefined>;
  /** The clock for `usage` (the current UTC month and day), expiries and graces; the system clock by default. */
  now?: () => Date;
  /** Opens the rates service on this configuration's cache (for `rates import|refresh`); stopped after the command. */
  rates?: () => RatesService;
  /** Opens the service of the sources besides the ECB on this configuration's database (for `rates import --source`); stopped after the command. */
  sources?: () => SourceRatesService;
  /** Applies the schema migrations (`db migrate`); migrateDatabase on the configuration by default. */
  migrate?: () => Promise<DatabaseMigration>;
  /** Progress lines (`rates: …`) on stderr: for a person at a terminal; off, stderr holds only the error line. */
  progress?: boolean;
  /** Seals webhook signing secrets; WEBHOOK_SECRET_KEY or the development key file by default. */
  webhookSecrets?: () => SecretBox;
}

interface Invocation {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  deps: AdminDeps;
}

interface Command {
  synopsis: string;
  options: NonNullable<ParseArgsConfig['options']>;
  positionals?: boolean;
  run(invocation: Invocation): Promise<object>;
}

/** The command line cannot be turned into a command: exit code 2. */
class UsageError extends Error {}

const str = { type: 'string' } as const;

const COMMANDS: Record<string, Command> = {
  'account create': {
    synopsis: 'account create --email E --plan free|developer|business',
    options: { email: str, plan: str },
    async run({ values, deps }) {
      const account = await deps.store.createAccount({ email: required(values, 'email'), plan: planOption(values) });
      return { id: account.id, email: account.email, plan: account.plan };
    },
  },
  'account plan': {
    synopsis: 'account plan --email E --plan free|developer|business',
    options: { email: str, plan: str },
    async run({ values, deps }) {
      const account = await deps.store.setPlan(required(values, 'email'), planOption(values));
      return { id: account.id, email: account.email, plan: account.plan };
    },
  },
  'account show': {
    synopsis: "account show --email E   (id, plan, created, this month's usage and limit)",
    options: { email: str },
    async run({ values, deps }) {
      const account = await accountByEmail(deps, required(values, 'email'));
      return showAccount(deps.store, account, clockOf(deps)());
    },
  },
  'account password': {
    synopsis: "account password --email E   (the new password on stdin; ends the account's sessions)",
    options: { email: str },
    async run({ values, deps }) {
      const email = required(values, 'email');
      const input = deps.stdin ? await deps.stdin() : undefined;
      if (input === undefined)
        throw new UsageError(
          'Pipe the new password on stdin, e.g.: printf %s "$PASSWORD" | npm run --silent admin -- account password --email E',
        );
      // One trailing newline is the shell's (echo, a here-string), not the password's.
      const account = await setAccountPassword(deps.store, email, input.replace(/\r?\n$/, ''));
      return { id: account.id, email: account.email, passwordSet: true, sessionsEnded: true };
    },
  },
  'key create': {
    synopsis: 'key create --plan free|developer|business [--email E] [--env live|test] [--expires RFC3339_TIME]',
    options: { plan: str, email: str, env: str, expires: str },
    async run({ values, deps }) {
      const plan = planOption(values);
      const env = envOption(values) ?? keyEnvFor(deps.config.apiEnv);
      const expires = values.expires === undefined ? null : parseKeyExpiry(String(values.expires), clockOf(deps)());
      const email = values.email as string | undefined;
      let account = email === undefined ? undefined : await deps.store.findAccountByEmail(email);
      if (account && account.plan !== plan) {
        throw new ApiError(
          'INVALID_REQUEST',
          `The account ${account.email} is on the ${account.plan} plan, not ${plan}; to change it, run: account plan --email ${account.email} --plan ${plan}`,
          { param: 'plan' },
        );
      }
      account ??= await deps.store.createAccount({ email, plan });
      const { key, record } = await deps.store.createKey(account.id, env, expires, deps.config.accountBounds.liveKeys);
      return {
        key,
        id: record.id,
        plan: account.plan,
        env: record.env,
        accountId: account.id,
        ...(record.expiresAt !== null && { expiresAt: record.expiresAt }),
      };
    },
  },
  'key list': {
    synopsis: "key list --email E   (the account's keys: id, env, created, last used, last 4 characters, revoked, expires)",
    options: { email: str },
    async run({ values, deps }) {
      return listAccountKeys(deps.store, await accountByEmail(deps, required(values, 'email')));
    },
  },
  'key revoke': {
    synopsis: 'key revoke --id KEY_ID',
    options: { id: str },
    async run({ values, deps }) {
      const { record, alreadyRevoked } = await deps.store.revokeKey(required(values, 'id'));
      return { id: record.id, revoked: true, revokedAt: record.revokedAt, alreadyRevoked };
    },
  },
  'key rotate': {
    synopsis: 'key rotate --id KEY_ID [--grace 0|1h|24h|7d|DURATION]   (the old key works on for the grace, at most 7d; 0: revoked now)',
    options: { id: str, grace: str },
    async run({ values, deps }) {
      const id = required(values, 'id');
      const grace = values.grace === undefined ? 0 : parseGrace(String(values.grace));
      const graceEndsAt = grace === 0 ? undefined : new Date(clockOf(deps)().getTime() + grace).toISOString();
      const { key, record, replaced } = await deps.store.rotateKey(id, graceEndsAt);
      const account = await deps.store.findAccountById(record.accountId);
      const old = replaced.revokedAt === null ? { replacedWorksUntil: replaced.expiresAt } : { replacedRevokedAt: replaced.revokedAt };
      const expiry = record.expiresAt === null ? {} : { expiresAt: record.expiresAt };
      return {
        key,
        id: record.id,
        plan: account?.plan,
        env: record.env,
        accountId: record.accountId,
        ...expiry,
        replaces: replaced.id,
        ...old,
      };
    },
  },
  usage: {
    synopsis: "usage --id KEY_ID   (this month's quota and the account's last 31 UTC days)",
    options: { id: str },
    async run({ values, deps }) {
      const id = required(values, 'id');
      const key = await deps.store.findKeyById(id);
      const account = key && (await deps.store.findAccountById(key.accountId));
      if (!account) throw new ApiError('NOT_FOUND', `No API key has the id ${quoteInput(id)}.`, { param: 'id' });
      const now = clockOf(deps)();
      const { quota, days } = await usageReport(deps.store, account, now);
      return { accountId: account.id, plan: account.plan, month: currentMonth(now), used: quota.used, limit: quota.limit, days };
    },
  },
  'webhook add': {
    synopsis: 'webhook add --email E --url URL   (prints the endpoint and its whsec_ signing secret, shown this once)',
    options: { email: str, url: str },
    async run({ values, deps }) {
      const [email, url] = [required(values, 'email'), required(values, 'url')];
      const account = await accountByEmail(deps, email);
      const { endpoint, secret } = await webhooksOf(deps).add({ accountId: account.id, url });
      return { id: endpoint.id, url: endpoint.url, createdAt: endpoint.createdAt, accountId: account.id, secret };
    },
  },
  'webhook list': {
    synopsis: "webhook list --email E   (the account's endpoints with their latest deliveries and failures)",
    options: { email: str },
    async run({ values, deps }) {
      const account = await accountByEmail(deps, required(values, 'email'));
      return { accountId: account.id, endpoints: await webhooksOf(deps).list(account.id) };
    },
  },
  'webhook remove': {
    synopsis: 'webhook remove --email E --id ENDPOINT_ID',
    options: { email: str, id: str },
    async run({ values, deps }) {
      const [email, id] = [required(values, 'email'), required(values, 'id')];
      const account = await accountByEmail(deps, email);
      await webhooksOf(deps).remove(account.id, id);
      return { id, removed: true };
    },
  },
  'db migrate': {
    synopsis: 'db migrate   (apply the database schema migrations; the server also does at start)',
    options: {},
    async run({ deps }) {
      try {
        return await (deps.migrate ?? (() => migrateDatabase(deps.config)))();
      } catch (error) {
        if (error instanceof DatabaseStartError) throw new ApiError('SERVICE_UNAVAILABLE', error.message);
        throw error;
      }
    },
  },
  'rates import': {
    synopsis: `rates import [--source ${SOURCE_IDS.join('|')}] <file>   (default ecb: XML, CSV or zip; others: a response of that publisher; progress on stderr)`,
    options: { source: str },
    positionals: true,
    async run({ values, positionals, deps }) {
      if (positionals.length !== 1) throw new UsageError('rates import takes exactly one <file>.');
      const file = path.resolve(positionals[0]!);
      const source = sourceOption(values);
      if (source !== undefined) return importSourceFile(deps, source, file, progressTo(deps));
      const report = await withRates(deps, (rates) => rates.importFile(file, progressTo(deps)), 'INVALID_REQUEST');
      return { file: report.file, ...counts(report) };
    },
  },
  'rates refresh': {
    synopsis: 'rates refresh   (fetch from ECB_BASE_URL now; progress on stderr)',
    options: {},
    async run({ deps }) {
      const report = await withRates(deps, (rates) => rates.refresh(progressTo(deps)), 'SERVICE_UNAVAILABLE');
      return { source: report.file, ...counts(report) };
    },
  },
};

/**
 * Runs one rates operation on a service of its own: the cache (SQLite in WAL mode, or Redis) is
 * shared with a running server, which notices the new data by the cache revision. A refused file
 * or feed becomes `refusedAs`; anything else stays INTERNAL.
 */
async function withRates(
  deps: AdminDeps,
  run: (rates: RatesService) => Promise<ImportReport>,
  refusedAs: 'INVALID_REQUEST' | 'SERVICE_UNAVAILABLE',
): Promise<ImportReport> {
  if (!deps.rates) throw new Error('The rates service is not available in this CLI build.');
  const rates = deps.rates();
  try {
    return await run(rates);
  } catch (error) {
    if (error instanceof RatesSourceError || error instanceof EcbFetchError) throw new ApiError(refusedAs, error.message);
    throw error;
  } finally {
    await rates.stop();
  }
}

async function accountByEmail(deps: AdminDeps, email: string): Promise<Account> {
  const account = await deps.store.findAccountByEmail(email);
  if (!account) throw new ApiError('NOT_FOUND', `No account has the email ${quoteInput(email)}.`, { param: 'email' });
  return account;
}

/** The webhooks use cases on this configuration: its URL rules, its key for the secrets and its bound on endpoints. */
function webhooksOf(deps: AdminDeps): Webhooks {
  return createWebhooks({
    store: deps.store.webhooks,
    secrets: deps.webhookSecrets ?? webhookSecretBox(deps.config, 'cli'),
    resolveHost,
    policy: webhookUrlPolicy(deps.config.apiEnv),
    clock: clockOf(deps),
    maxEndpoints: deps.config.accountBounds.webhookEndpoints,
  });
}

function clockOf(deps: AdminDeps): () => Date {
  return deps.now ?? (() => new Date());
}

function progressTo(deps: AdminDeps): (message: string) => void {
  return (message) => {
    if (deps.progress) deps.stderr.write(`rates: ${message}\n`);
  };
}

function counts(report: ImportReport) {
  return { publications: report.publications, added: report.added, replaced: report.replaced, newest: report.newest };
}

export const USAGE = [
  'Usage: npm run --silent admin -- <command> [options]',
  '',
  'Commands:',
  ...Object.values(COMMANDS).map((command) => `  ${command.synopsis}`),
  '',
  'Prints one JSON line on stdout; errors are one JSON line on stderr (exit 1, or 2 for usage errors,',
  'followed by this text). Progress of rates import|refresh goes to stderr when it is a terminal.',
  '--env defaults to the environment this configuration serves (API_ENV=production: live, else test).',
].join('\n');

/** Runs one CLI invocation and returns the process exit code. */
export async function runAdmin(argv: string[], deps: AdminDeps): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    deps.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    if (argv.length === 0) throw new UsageError('No command given.');
    const [name, command] = findCommand(argv);
    const rest = argv.slice(name.split(' ').length);
    const { values, positionals } = parseCommandLine(command, rest);
    const result = await command.run({ values, positionals, deps });
    deps.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const [code, exitCode] =
      error instanceof UsageError ? ['INVALID_REQUEST', 2] : error instanceof ApiError ? [error.code, 1] : ['INTERNAL', 1];
    const message = error instanceof Error ? error.message : String(error);
    deps.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
    if (error instanceof UsageError) deps.stderr.write(`${USAGE}\n`);
    return exitCode;
  }
}

function findCommand(argv: string[]): [string, Command] {
  for (const name of [argv.slice(0, 2).join(' '), argv[0]!]) {
    const command = COMMANDS[name];
    if (command) return [name, command];
  }
  throw new UsageError(`Unknown command '${argv.slice(0, 2).join(' ')}'; run with --help for the list of commands.`);
}

function parseCommandLine(command: Command, args: string[]) {
  try {
    return parseArgs({ args, options: command.options, strict: true, allowPositionals: command.positionals ?? false });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(values: Invocation['values'], name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`Missing --${name}.`);
  return value;
}

function planOption(values: Invocation['values']): PlanId {
  const plan = required(values, 'plan');
  if (!isPlanId(plan)) throw new UsageError(`--plan must be one of ${PLAN_IDS.join(', ')} (got '${plan}').`);
  return plan;
}

/** `--source`: undefined for the ECB (also `--source ecb`), else a source besides it; an unknown id is a usage error listing the ids. */
function sourceOption(values: Invocation['values']) {
  try {
    return sourceOptionOf(values.source);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function envOption(values: Invocation['values']): KeyEnv | undefined {
  const env = values.env;
  if (env === undefined) return undefined;
  if (env !== 'live' && env !== 'test') throw new UsageError(`--env must be live or test (got '${String(env)}').`);
  return env;
}
