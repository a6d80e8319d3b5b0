import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors';
import type { RateLimitKind, SpendCover } from '../../src/domain/rate-limit';
import { spendBeforeParse } from '../../src/http/graphql/request-rate-limit';
import { createRateLimiters, type RateLimiters } from '../../src/http/limits/rate-limit';
import { requestSpending, type RequestSpending } from '../../src/http/limits/request-spending';
import type { Principal } from '../../src/services/auth';
import { HttpRequestContext } from '../../src/http/front/request-context';

/**
 * Which bucket a request spends, decided once per request, and what its fields spend after it: the
 * rules of src/http/limits/request-spending.ts as tables, on memory limiters and made-up keys.
 */
const VALID = 'Bearer msr_test_valid';
const INVALID = 'Bearer msr_test_revoked';
const IP = '203.0.113.7';

const principal = { keyId: 'key_1', account: { id: 'acct_1', plan: 'free' } } as unknown as Principal;
const unused = () => Promise.reject(new Error('not used here'));

function contextWith(authorization: string | null): HttpRequestContext {
  return new HttpRequestContext(
    {
      authenticate: (header) =>
        header === VALID ? Promise.resolve(principal) : Promise.reject(new ApiError('UNAUTHORIZED', 'An API key is required.')),
      loadPublications: unused,
      quotaState: unused,
    },
    { authorization, clientBucket: () => IP },
  );
}

const opened: RateLimiters[] = [];
afterEach(async () => {
  for (const l of opened.splice(0)) await l.close();
});

async function setUp(publicPerMinute = 60, keyPerSecond = 50) {
  const limiters = await createRateLimiters({ publicPerMinute, keyPerSecond });
  opened.push(limiters);
  const refusedPlans: string[] = [];
  const refusedAccounts: string[] = [];
  const spending = requestSpending({
    limiters,
    metrics: { rateLimited: (plan) => refusedPlans.push(plan) },
    refusals: { refused: (accountId, kind) => refusedAccounts.push(`${accountId}:${kind}`) },
  });
  return { limiters, spending, refusedPlans, refusedAccounts };
}

/** What is left of the IP's and the key's limits: one probe each, spent from the same counters. */
async function left(limiters: RateLimiters): Promise<Record<RateLimitKind, number>> {
  return { public: (await limiters.consume('public', IP)).remaining, key: (await limiters.consume('key', 'key_1')).remaining };
}

describe('the bucket a request spends', () => {
  // access: what the surface admits (a keyed REST route and MCP: key; a public route and GraphQL: public).
  const cases: { access: RateLimitKind; authorization: string | null; bucket: RateLimitKind | 'UNAUTHORIZED' }[] = [
    { access: 'public', authorization: null, bucket: 'public' },
    { access: 'public', authorization: VALID, bucket: 'key' },
    { access: 'public', authorization: INVALID, bucket: 'public' },
    { access: 'key', authorization: null, bucket: 'UNAUTHORIZED' },
    { access: 'key', authorization: VALID, bucket: 'key' },
    { access: 'key', authorization: INVALID, bucket: 'UNAUTHORIZED' },
  ];

  it.each(cases)('a $access surface, Authorization $authorization: $bucket', async ({ access, authorization, bucket }) => {
    const { limiters, spending } = await setUp(60, 50);
    const context = contextWith(authorization);
    const spent = spending.spendRequest(context, access, 'request');
    const record = context.rateLimitSpend;
    if (bucket === 'UNAUTHORIZED') {
      await expect(spent).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      expect(record).toMatchObject({ spent: 0, paid: false, state: undefined });
      expect(await left(limiters)).toEqual({ public: 59, key: 49 });
      return;
    }
    await spent;
    expect(record).toMatchObject({ kind: bucket, spent: 1, covers: 'request', paid: true, refused: false });
    expect(record.bucket).toBe(bucket === 'key' ? 'key_1' : IP);
    expect(record.state?.policy.name).toBe(bucket === 'key' ? 'per-key' : 'per-ip');
    // One request from the decided bucket, none from the other.
    expect(await left(limiters)).toEqual(bucket === 'key' ? { public: 59, key: 48 } : { public: 58, key: 49 });
  });

  it('is decided once: a later spend of the request, and the GraphQL step, take the same bucket or nothing', async () => {
    const { limiters, spending } = await setUp();
    const context = contextWith(VALID);
    await spending.spendRequest(context, 'key', 'request');
    // An MCP call's document reaches the GraphQL step with its request already paid for.
    expect(spendBeforeParse(context, spending)).toBeUndefined();
    await spending.spendMore(context, 3);
    expect(context.rateLimitSpend).toMatchObject({ kind: 'key', spent: 4 });
    expect(await left(limiters)).toEqual({ public: 59, key: 45 });
  });

  it('spends more only from a decided bucket', async () => {
    const { spending } = await setUp();
    expect(() => spending.spendMore(contextWith(VALID), 2)).toThrow(TypeError);
  });

  it.each([
    { authorization: null, policy: 'per-ip', plans: ['public'], accounts: [] },
    { authorization: VALID, policy: 'per-key', plans: ['free'], accounts: ['acct_1:rate'] },
  ])(
    'refuses past the limit (Authorization $authorization), records the refusal and pays for nothing',
    async ({ authorization, policy, plans, accounts }) => {
      const { spending, refusedPlans, refusedAccounts } = await setUp(1, 1);
      await spending.spendRequest(contextWith(authorization), 'public', 'first-field');
      const context = contextWith(authorization);
      const refusal = await spendBeforeParse(context, spending);
      expect(refusal).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', details: { rateLimit: { policy: { name: policy }, remaining: 0 } } });
      expect(context.rateLimitSpend).toMatchObject({ spent: 1, refused: true, paid: false, state: undefined });
      expect(refusedPlans).toEqual(plans);
      expect(refusedAccounts).toEqual(accounts);
    },
  );
});

describe("what a request's fields spend after its own spend", () => {
  // Each row: the request's spend (its Authorization and what it covers), then the kinds of its
  // rate-limited fields in execution order and whether each spends one request.
  const cases: { name: string; authorization: string | null; covers: SpendCover | undefined; fields: [RateLimitKind, boolean][] }[] = [
    {
      name: 'a REST route or MCP call: its spend covers every field',
      authorization: VALID,
      covers: 'request',
      fields: [
        ['key', false],
        ['key', false],
        ['public', false],
      ],
    },
    { name: 'a keyless REST route through SOFA', authorization: null, covers: 'request', fields: [['public', false]] },
    {
      name: 'GraphQL without a key: the first public field is prepaid',
      authorization: null,
      covers: 'first-field',
      fields: [
        ['public', false],
        ['public', true],
        ['public', true],
      ],
    },
    {
      name: 'GraphQL without a key: a keyed field still spends (and is then refused UNAUTHORIZED)',
      authorization: null,
      covers: 'first-field',
      fields: [
        ['key', true],
        ['public', false],
      ],
    },
    {
      name: 'GraphQL with an invalid key: spends as a keyless request',
      authorization: INVALID,
      covers: 'first-field',
      fields: [
        ['public', false],
        ['public', true],
      ],
    },
    {
      name: "GraphQL with a valid key: the first keyed field is prepaid, public fields never spend the IP's",
      authorization: VALID,
      covers: 'first-field',
      fields: [
        ['public', false],
        ['key', false],
        ['key', true],
        ['public', false],
        ['key', true],
      ],
    },
    {
      name: 'a request that spent nothing (a schema run outside the front): every field spends',
      authorization: null,
      covers: undefined,
      fields: [
        ['public', true],
        ['public', true],
      ],
    },
  ];

  it.each(cases)('$name', async ({ authorization, covers, fields }) => {
    const { spending } = await setUp();
    const context = contextWith(authorization);
    if (covers) await spending.spendRequest(context, 'public', covers);
    expect(fields.map(([kind]) => [kind, context.rateLimitSpend.fieldSpends(kind)])).toEqual(fields);
  });
});

/** A made-up spending stand-in counting its calls, for the GraphQL step's own rule. */
function countingSpending(): Pick<RequestSpending, 'spendRequest'> & { calls: number } {
  const spending = {
    calls: 0,
    spendRequest(context: HttpRequestContext, access: RateLimitKind, covers: SpendCover) {
      spending.calls++;
      context.rateLimitSpend.kind = access;
      context.rateLimitSpend.covers = covers;
      return Promise.resolve();
    },
  };
  return spending;
}

describe('the GraphQL step before parse', () => {
  it('spends once, covering the first field, and settles to nothing when the request may go on', async () => {
    const spending = countingSpending();
    const context = contextWith(null);
    await expect(spendBeforeParse(context, spending)).resolves.toBeUndefined();
    expect(spendBeforeParse(context, spending)).toBeUndefined();
    expect(spending.calls).toBe(1);
    expect(context.rateLimitSpend.covers).toBe('first-field');
  });
});
