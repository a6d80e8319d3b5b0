import { describe, expect, it } from 'vitest';
import { HttpRequestContext } from '../../../src/http/front/request-context';
import type { Principal } from '../../../src/services/auth';
import { RequestContext, type RequestContextServices } from '../../../src/services/request-context';

/**
 * The front's request context: the use cases' RequestContext plus the transport's state. A key is
 * taken from the key cache unconfirmed only for an answer the front holds until it is confirmed,
 * and an answer that says the database is away confirms nothing.
 */
const KEY = 'Bearer msr_test_valid';
const principal = { keyId: 'key_1', account: { id: 'acct_1', plan: 'free' }, expiresAt: null } as unknown as Principal;

function servicesRecording() {
  const calls: string[] = [];
  const services: RequestContextServices = {
    authenticate: async () => {
      calls.push('full check');
      return principal;
    },
    unconfirmedPrincipal: () => {
      calls.push('cache');
      return { principal, revision: 7 };
    },
    keysRevision: async () => {
      calls.push('revision read');
      return 7;
    },
    loadPublications: () => Promise.reject(new Error('not used here')),
    quotaState: () => Promise.reject(new Error('not used here')),
  };
  return { calls, services };
}

const init = { authorization: KEY, clientBucket: () => '203.0.113.7' };

describe('which context takes a key unconfirmed', () => {
  it("the use cases' context checks the key in full: nothing waits for a confirmation", async () => {
    const { calls, services } = servicesRecording();
    const context = new RequestContext(services, init);
    expect(await context.authenticate()).toBe(principal);
    expect(calls).toEqual(['full check']);
    expect(context.confirmKey()).toBeUndefined();
  });

  it("the front's context takes it from the cache when its answer is held, and confirms it before the answer", async () => {
    const { calls, services } = servicesRecording();
    const context = new HttpRequestContext(services, init);
    context.confirmsBeforeAnswer = true;
    await context.authenticate();
    expect(calls).toEqual(['cache']);
    await context.confirmKey();
    expect(calls).toEqual(['cache', 'revision read']);
    expect(context.unconfirmedRevision).toBeUndefined();
  });

  it("the front's context whose answer is not held checks the key in full", async () => {
    const { calls, services } = servicesRecording();
    await new HttpRequestContext(services, init).authenticate();
    expect(calls).toEqual(['full check']);
  });

  it('an answer that says the database is away reads no revision', async () => {
    const { calls, services } = servicesRecording();
    const context = new HttpRequestContext(services, init);
    context.confirmsBeforeAnswer = true;
    await context.authenticate();
    context.errorCode = 'SERVICE_UNAVAILABLE';
    expect(context.confirmKey()).toBeUndefined();
    expect(calls).toEqual(['cache']);
  });
});

describe("the transport's own state", () => {
  it("keeps the longest Retry-After of the answer's errors, ignoring what is not a positive number", () => {
    const context = new HttpRequestContext(servicesRecording().services, init);
    for (const seconds of [5, 60, Number.NaN, -1, 0, 30]) context.noteRetryAfter(seconds);
    expect(context.retryAfter).toBe(60);
  });

  it("is not part of the use cases' context", () => {
    const context = new RequestContext(servicesRecording().services, init);
    for (const member of ['rateLimitSpend', 'confirmsBeforeAnswer', 'retryAfter', 'errorCode', 'noteRetryAfter'])
      expect(member in context).toBe(false);
  });
});
