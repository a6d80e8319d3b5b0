import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app';

/**
 * The GraphQL over HTTP audits of the graphql-http package (the spec's own conformance suite),
 * against the real listener: every one of them, MUST, SHOULD and MAY alike, answers `ok`, as
 * each did on the server before GraphQL requests were executed outside Yoga. An audit's reason
 * is in the failure message.
 */
describe('GraphQL over HTTP audits (graphql-http serverAudits)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ PUBLIC_RATE_LIMIT: '100000' });
  });
  afterAll(() => t?.close());

  const audits = serverAudits({ url: () => `${t.origin}/graphql` });

  it('lists the audits of graphql-http 1.23.1', () => {
    expect(audits.length).toBe(61);
  });

  it.each(audits.map((audit) => [audit.id, audit.name, audit] as const))('%s %s', async (_id, _name, audit) => {
    const result = await audit.fn();
    expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
  });
});
