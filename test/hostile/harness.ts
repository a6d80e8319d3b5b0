/**
 * The app the hostile suites attack, and the invariants every answer must keep whatever was sent:
 * no 5xx, the contract's error shape and codes, request ids that match, well-formed numbers. The
 * slowest request is printed for a person to read, never asserted: the machine is shared.
 */
import { expect } from 'vitest';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../src/domain/errors';
import { createTestApp, type TestApp } from '../helpers/app';
import { MADE_UP_PUBLICATIONS, tableRates } from '../helpers/table-rates';

/** Output numbers of the contract (section 3); `-0` matches the pattern but is never allowed. */
const OUTPUT_NUMBER = /^-?\d+(\.\d+)?$/;
const NEGATIVE_ZERO = /^-0(\.0+)?$/;
const RATE_NUMBER = /^\d+(\.\d+)?$/;

export interface HostileApp {
  t: TestApp;
  /** A business-plan key: quota never masks a result. */
  key: string;
  /** A free-plan key, for PLAN_REQUIRED. */
  freeKey: string;
  slowest: Slowest;
}

/** Rate limits out of the way, rates loaded, "today" the day after the last made-up publication. */
export async function createHostileApp(): Promise<HostileApp> {
  const t = await createTestApp(
    { PUBLIC_RATE_LIMIT: '1000000', KEY_RATE_LIMIT: '1000000' },
    { rates: tableRates(MADE_UP_PUBLICATIONS), clock: () => new Date('2024-04-03T12:00:00Z') },
  );
  return { t, key: await t.createKey('business'), freeKey: await t.createKey('free'), slowest: new Slowest() };
}

/** Keeps the slowest request and what it was, to print (a time is information here, not a verdict). */
export class Slowest {
  ms = 0;
  input = '';

  async time<T>(describe: () => string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await run();
    const ms = performance.now() - started;
    if (ms > this.ms) [this.ms, this.input] = [ms, describe()];
    return result;
  }

  print(label: string): void {
    console.info(`[hostile] slowest ${label}: ${this.ms.toFixed(1)} ms for ${this.input}`);
  }
}

/** A short, printable description of an input (megabyte strings are shown by their length). */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 300 ? `${JSON.stringify(text.slice(0, 200))}… (${text.length} chars)` : JSON.stringify(text);
}

export interface RestAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** Every REST answer: below 500, an error body of the contract with the status of its code, the request id echoed. */
export function expectRestInvariants(res: RestAnswer, input: string): void {
  const where = `${res.status} for ${input}: ${show(res.body)}`;
  expect(res.status, where).toBeLessThan(500);
  const requestId = res.headers.get('x-request-id');
  expect(requestId, where).toMatch(/^[0-9a-f-]{36}$/);
  if (input.startsWith('HEAD ')) {
    expect(res.body, `${where}: a HEAD answer has no body`).toBeUndefined();
    return;
  }
  if (res.status === 304 || res.status === 204) return;
  if (res.status >= 200 && res.status < 300) {
    // A series export in CSV or NDJSON is a download, not a JSON body.
    if (!(res.headers.get('content-type') ?? '').startsWith('application/json')) {
      expect(res.headers.get('content-disposition'), where).toMatch(/^attachment; filename="/);
      return;
    }
    expectData(res.body.data, where);
    return;
  }
  // A signed link's query on the keyed export: redirected to the links' route.
  if (res.status === 308) {
    expect(res.headers.get('location'), where).toMatch(/^\/v1\/currency\/rates\/series\/signed\?/);
    return;
  }
  const error = res.body?.error;
  expect(ERROR_CODES, where).toContain(error?.code);
  expect(error.status, where).toBe(res.status);
  expect(ERROR_STATUS[error.code as ErrorCode], where).toBe(res.status);
  expect(error.requestId, where).toBe(requestId);
  expect(typeof error.message === 'string' && !/\n\s+at /.test(error.message), where).toBe(true);
}

/** Every GraphQL answer: below 500, JSON, each error with a contract code (never INTERNAL) and its status. */
export function expectGraphQLInvariants(status: number, body: any, input: string): void {
  const where = `${status} for ${input}: ${show(body)}`;
  expect(status, where).toBeLessThan(500);
  expect(body !== null && typeof body === 'object' && ('data' in body || 'errors' in body), where).toBe(true);
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code as ErrorCode;
    expect(ERROR_CODES, where).toContain(code);
    expect(code, where).not.toBe('INTERNAL');
    expect(error.extensions.status, where).toBe(ERROR_STATUS[code]);
  }
  for (const value of Object.values(body.data ?? {})) expectData(value, where);
}

/**
 * Conversion results, cross rates and listed rates in any answer: the contract's number shape,
 * never "-0" (input values are echoed as sent and not checked). Batch item errors: contract codes.
 */
export function expectData(data: unknown, where: string): void {
  if (Array.isArray(data)) {
    for (const item of data) expectData(item, where);
    return;
  }
  if (typeof data !== 'object' || data === null) return;
  const record = data as Record<string, any>;
  const code = record['error']?.code as ErrorCode | undefined;
  if (code !== undefined) {
    expect(ERROR_CODES, where).toContain(code);
    expect(code, where).not.toBe('INTERNAL');
    if (record['error'].status !== undefined) expect(record['error'].status, where).toBe(ERROR_STATUS[code]);
  }
  for (const number of [record['result']?.value, record['rate']?.value]) {
    if (number === undefined) continue;
    expect(number, where).toMatch(OUTPUT_NUMBER);
    expect(number, where).not.toMatch(NEGATIVE_ZERO);
  }
  // Listed rates: as published (unsigned) without an amount; times an amount, any output number but never "-0".
  for (const rate of Object.values(record['rates'] ?? {})) {
    if (typeof record['base'] !== 'string') break;
    expect(rate, where).toMatch(record['amount'] == null ? RATE_NUMBER : OUTPUT_NUMBER);
    expect(rate, where).not.toMatch(NEGATIVE_ZERO);
  }
  for (const nested of [record['results'], record['data']]) if (nested !== undefined) expectData(nested, where);
}

/** POST /graphql through the front with any body and headers (t.graphql always sends well-formed JSON); a body that is not JSON comes back undefined. */
export async function postGraphQL(t: TestApp, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await t.fetch('/graphql', { method: 'POST', headers: { ...headers }, body });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: undefined };
  }
}
