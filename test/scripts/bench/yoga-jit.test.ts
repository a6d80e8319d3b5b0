import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatYogaJitComparison } from '../../../scripts/bench/compare';
import type { Measurement } from '../../../scripts/bench/load';
import { benchTargets, graphQLConvertRequest, verifyTarget, type ServersReady } from '../../../scripts/bench/targets';
import { checkSameGraphQLBodies, withinWindow } from '../../../scripts/bench/yoga-jit';
import { jitExecution } from '../../../scripts/yoga-reference/yoga-graphql';
import { createGraphQLOracle, type GraphQLOracle } from '../../helpers/graphql-oracle';

const portOf = (origin: string) => Number(new URL(origin).port);

/** A ready message of the app's and the comparison servers' children, made up: the targets are built from it. */
const READY: ServersReady = {
  appPort: 1001,
  key: 'msr_test_executor',
  batchKeys: [],
  convertBody: '',
  contentType: 'application/json',
  answerHeaders: [],
  memory: { skipped: 'not asked for' },
  baselinePort: 1002,
  answerPort: 1003,
  expressPort: 1004,
};

describe('the graphql-yoga-jit row: Yoga on graphql-jit answers the bench request as the executor does', () => {
  let oracle: GraphQLOracle;
  beforeAll(async () => {
    oracle = await createGraphQLOracle('sqlite', { jit: true });
  });
  afterAll(() => oracle.close());

  it('the bench start-up check passes on twin keys, before and after the executor compiles the document', async () => {
    const twins = [
      (await oracle.executor.createAccountKey('business')).key,
      (await oracle.executor.createAccountKey('business')).key,
    ] as const;
    await expect(checkSameGraphQLBodies(portOf(oracle.executor.origin), portOf(oracle.yoga.origin), twins)).resolves.toBeUndefined();
  });

  it("passes both rows' checks of the verified answer, its cost included", async () => {
    const executorKey = (await oracle.executor.createAccountKey('business')).key;
    const yogaKey = (await oracle.executor.createAccountKey('business')).key;
    const targets = benchTargets({
      ...READY,
      appPort: portOf(oracle.executor.origin),
      key: executorKey,
      yogaJit: { port: portOf(oracle.yoga.origin), key: yogaKey },
    }).filter((t) => t.id.startsWith('graphql'));
    expect(targets.map((t) => t.id)).toEqual(['graphql', 'graphql-yoga-jit']);
    const [executor, yoga] = await Promise.all(targets.map((t) => verifyTarget(t)));
    expect(yoga).toBe(executor);
  });

  it('answers POST and GET /graphql with the same status, headers and body', async () => {
    const key = await oracle.key('business');
    const post = graphQLConvertRequest(key);
    const query = JSON.parse(post.body).query as string;
    for (let i = 0; i < 3; i += 1) {
      const answer = await oracle.expectSameAnswer({ method: 'POST', url: '/graphql', headers: post.headers, body: post.body });
      expect(answer.status).toBe(200);
      const get = await oracle.expectSameAnswer({
        method: 'GET',
        url: `/graphql?query=${encodeURIComponent(query)}`,
        headers: { authorization: post.headers.authorization!, accept: 'application/json' },
      });
      expect(get.text).toContain('"result":{"unit":"centimeter","value":"31.75"}');
    }
  });
});

describe("the Yoga reference's graphql-jit execution", () => {
  /** What each execution's result carries: graphql-jit's results have a `stringify`, graphql-js's none. */
  const stringifiers = async (jit: boolean) => {
    const seen: string[] = [];
    const observer: Plugin = {
      onExecute: () => ({ onExecuteDone: ({ result }) => void seen.push(typeof (result as { stringify?: unknown }).stringify) }),
    };
    const yoga = createYoga({
      schema: createSchema({ typeDefs: 'type Query { hello: String! }', resolvers: { Query: { hello: () => 'made-up' } } }),
      plugins: jit ? [jitExecution(), observer] : [observer],
    });
    for (let i = 0; i < 2; i += 1) {
      const response = await yoga.fetch('http://yoga/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"query":"{ hello }"}',
      });
      expect(await response.text()).toBe('{"data":{"hello":"made-up"}}');
    }
    return seen;
  };

  it('executes every request on graphql-jit, the same bytes as graphql-js', async () => {
    expect(await stringifiers(true)).toEqual(['function', 'function']);
    expect(await stringifiers(false)).toEqual(['undefined', 'undefined']);
  });
});

describe('the bench start-up check of the graphql-yoga-jit row', () => {
  const servers: Server[] = [];
  const serving = async (body: string) => {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  afterAll(() => servers.forEach((server) => server.close()));

  it('fails loudly, with both bodies, when the two answers differ by a byte', async () => {
    const executor = await serving('{"data":{"convert":{"value":"31.75"}}}');
    const yoga = await serving('{"data":{"convert":{"value":"31.750"}}}');
    await expect(checkSameGraphQLBodies(executor, yoga, ['a', 'b'])).rejects.toThrow(
      /Yoga \+ graphql-jit answered\n200 .*31\.750.*\nthe executor\n200 .*31\.75"/,
    );
    await expect(checkSameGraphQLBodies(executor, executor, ['a', 'b'])).resolves.toBeUndefined();
  });
});

describe('the graphql-yoga-jit target', () => {
  it('sends the graphql row request, with its own key, to the Yoga front', () => {
    const targets = benchTargets({ ...READY, yogaJit: { port: 1005, key: 'msr_test_yoga' } });
    const executor = targets.find((t) => t.id === 'graphql')!;
    const yoga = targets.find((t) => t.id === 'graphql-yoga-jit')!;
    expect(yoga.url).toBe('http://127.0.0.1:1005/graphql');
    expect(executor.url).toBe('http://127.0.0.1:1001/graphql');
    expect([yoga.method, yoga.body, yoga.kind]).toEqual([executor.method, executor.body, executor.kind]);
    expect(yoga.headers).toEqual({ ...executor.headers, authorization: 'Bearer msr_test_yoga' });
  });

  it('is absent when the app child serves no Yoga front', () => {
    expect(benchTargets(READY).map((t) => t.id)).not.toContain('graphql-yoga-jit');
  });
});

describe('the comparison of Yoga on graphql-jit with the executor', () => {
  const row = (id: string, requestsPerSecond: number, serverCpuMicros: number): Measurement => ({
    id,
    label: id,
    kind: 'app',
    itemsPerRequest: undefined,
    requestsPerSecond,
    requestsPerSecondSd: 0,
    p50Ms: 1,
    p99Ms: 2,
    requests: requestsPerSecond,
    non2xx: 0,
    mismatches: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: {},
    firstMismatch: undefined,
    serverCpuMicros,
  });

  it('divides each Yoga row by the executor row of the same mode and says whether its CPU is within 10 %', () => {
    const text = formatYogaJitComparison([
      row('graphql', 1000, 100),
      row('graphql@1000', 1000, 80),
      row('graphql-yoga-jit', 800, 125),
      row('graphql-yoga-jit@1000', 1000, 88),
    ]);
    expect(text).toContain('| graphql-yoga-jit | 0.80x | 1.25x | no |');
    expect(text).toContain('| graphql-yoga-jit@1000 | 1.00x | 1.10x | yes |');
  });

  it('is empty without a pair to compare', () => {
    expect(formatYogaJitComparison([row('graphql', 1000, 100)])).toBe('');
  });
});

describe('the start-up check compares twin keys whatever second of their window each request fell in', () => {
  const body = (remaining: number, reset: number) =>
    `{"data":{},"extensions":{"cost":{"requests":1},"quota":{"limit":2000000,"remaining":1999999,"resetsAt":"2027-01-01T00:00:00.000Z"},"rateLimit":{"policy":"per-key","limit":50,"windowSeconds":1,"remaining":${remaining},"resetSeconds":${reset}}}}`;

  it('reads the rate limit state as kinds, and nothing else', () => {
    expect(withinWindow(body(48, 1))).toBe(withinWindow(body(49, 0)));
    expect(withinWindow(body(48, 1))).toContain('"quota":{"limit":2000000,"remaining":1999999,');
    expect(withinWindow(body(48, 1).replace('"requests":1', '"requests":2'))).not.toBe(withinWindow(body(48, 1)));
  });
});
