/**
 * The graphql-yoga-jit row's server, in the app's child (servers.ts): a second node:http front on
 * the same app (services, store, limiters, finish, metrics) whose /graphql handler, POST and GET
 * alike, is Yoga — createYoga with the project's steps as plugins, the parity suites' reference
 * (scripts/yoga-reference/) — executing on graphql-jit through @envelop/graphql-jit. Every other
 * route is the same app's, in the same process, so the graphql and graphql-yoga-jit rows differ
 * by the GraphQL handler alone.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { TrustProxy } from '../../src/domain/client-ip';
import { createHttpServer } from '../../src/http/front/node-server';
import { yogaGraphQLHandler, type GraphQLHandlerParts } from '../yoga-reference/yoga-graphql';
import { graphQLConvertRequest } from './targets';

/** Listens the second front; its port. */
export function listenYogaJit(parts: GraphQLHandlerParts, trust: TrustProxy, listen: (server: Server) => Promise<number>): Promise<number> {
  const front = { ...parts.app.front, graphql: yogaGraphQLHandler(parts, { jit: true }) };
  return listen(createHttpServer({ front, logger: parts.logger, metricsAccess: parts.config.metrics, trust }));
}

/**
 * Runs before compiling (src/graphql/prepared-documents.ts): the executor runs an operation's first
 * request on graphql-js and compiles it from the second, Yoga's plugin compiles at once.
 */
const CHECKED_REQUESTS = 3;

/**
 * A body with its rate limit's `remaining` and `resetSeconds` written as their kinds: they say where
 * the request fell in its key's one-second window, which two twin keys' requests, sent one after
 * the other, need not share on a loaded machine. Every other byte must be the same.
 */
export function withinWindow(body: string): string {
  return body.replace(/"remaining":(\d+),"resetSeconds":(\d+)\}/g, (_, remaining: string, reset: string) => {
    assert.ok(Number(remaining) >= 0 && Number(reset) >= 0, `a rate limit state out of range in ${body}`);
    return '"remaining":"<count>","resetSeconds":"<count>"}';
  });
}

/**
 * The bench's GraphQL request, sent to the executor's front with one key and to Yoga's with the
 * other, in turns: the two keys are twins (fresh business accounts), so each pair of answers must be
 * the same bytes, extensions (quota and rate-limit counters) included. Throws with both bodies
 * when a pair differs: the rows would not measure the same answer.
 */
export async function checkSameGraphQLBodies(executorPort: number, yogaPort: number, keys: readonly [string, string]): Promise<void> {
  const answer = async (port: number, key: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/graphql`, graphQLConvertRequest(key));
    return { status: response.status, body: withinWindow(await response.text()) };
  };
  for (let i = 1; i <= CHECKED_REQUESTS; i += 1) {
    const executor = await answer(executorPort, keys[0]);
    const yoga = await answer(yogaPort, keys[1]);
    assert.deepEqual(
      yoga,
      executor,
      `POST /graphql convert, request ${i} of ${CHECKED_REQUESTS}: Yoga + graphql-jit answered\n${yoga.status} ${yoga.body}\nthe executor\n${executor.status} ${executor.body}`,
    );
  }
}
