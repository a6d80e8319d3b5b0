import type { GraphQLDirective, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { rateLimitDirective } from 'graphql-rate-limit-directive';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RATE_LIMIT_DIRECTIVE_DEFINITIONS, RATE_LIMIT_DIRECTIVE_NAMES, RATE_LIMIT_DIRECTIVE_SDL } from '../../graphql/rate-limit-directives';
import { RATE_LIMIT_KINDS, rateLimitExceeded, rateLimitState, type RateLimiters, type RateLimitKind, type RateLimitState } from './rate-limit';

/**
 * graphql-rate-limit-directive on the limiters of createRateLimiters: `@publicRateLimit` spends one
 * request of the caller's per-IP limit, `@keyRateLimit` one of its per-key limit, before the field
 * resolves. The directive spends even when the resolver then fails, so it is only ever a request
 * limit, never the monthly quota.
 *
 * Two directives rather than one `@rateLimit(limit, duration)`: the library picks its limiter from
 * the directive, and the two limits differ in both the counter and the caller's bucket. They take
 * no arguments: the limits are configuration (PUBLIC_RATE_LIMIT, KEY_RATE_LIMIT), so the schema,
 * and its committed SDL, does not change with the environment. Their definitions are the schema's
 * (src/graphql/rate-limit-directives.ts); this is their implementation on the limiters.
 */
export interface RateLimitDirectiveOptions<TContext> {
  /**
   * The caller's bucket, the same string REST passes to consume(): `rateLimitBucket(ip)` for
   * 'public', the API key's id for 'key' (throwing UNAUTHORIZED there is fine: it surfaces as is).
   */
  bucketOf(kind: RateLimitKind, context: TContext, info: GraphQLResolveInfo): string | Promise<string>;
  /** Receives the state after every spend, e.g. to put RateLimit headers on the response. */
  onState?(state: RateLimitState, context: TContext): void;
  /**
   * Requests one field spends from the `kind` limit (default 1). 0 spends nothing: the library then
   * skips the limiter, as for a REST request that the edge already counted before validating its
   * inputs, or the first field of a GraphQL request that spent one request before it was parsed.
   */
  pointsOf?(context: TContext, kind: RateLimitKind): number;
  /** Told of every refusal (metrics), before RATE_LIMIT_EXCEEDED is thrown. */
  onRefused?(kind: RateLimitKind, context: TContext): void;
}

export interface RateLimitDirectives {
  /** The directive definitions, for SDL-first schemas. */
  typeDefs: string;
  /** The same definitions as objects, for Pothos: `builder.toSchema({ directives: definitions })`. */
  definitions: GraphQLDirective[];
  /** Wraps the resolvers of every field (or every field of a type) that carries a directive. */
  transformer(schema: GraphQLSchema): GraphQLSchema;
}

export function rateLimitDirectiveFor<TContext>(limiters: RateLimiters, options: RateLimitDirectiveOptions<TContext>): RateLimitDirectives {
  const implementations = RATE_LIMIT_KINDS.map((kind) => {
    const policy = limiters.policies[kind];
    return rateLimitDirective<TContext>({
      name: RATE_LIMIT_DIRECTIVE_NAMES[kind],
      // Not the field coordinate (the library's default: one bucket for everyone) and not per
      // field: all the fields a caller resolves spend from its one bucket, as its REST calls do.
      keyGenerator: (_directiveArgs, _source, _args, context, info) => options.bucketOf(kind, context, info),
      pointsCalculator: (_directiveArgs, _source, _args, context) => options.pointsOf?.(context, kind) ?? 1,
      // The default throws a plain error that would surface as INTERNAL (500).
      onLimit: (res, _directiveArgs, _source, _args, context) => {
        options.onRefused?.(kind, context);
        throw rateLimitExceeded(rateLimitState(policy, res));
      },
      setState: (res, _directiveArgs, _source, _args, context) => options.onState?.(rateLimitState(policy, res), context),
      limiterClass: sharedLimiterClass(limiters.limiters[kind]),
    });
  });
  return {
    typeDefs: RATE_LIMIT_DIRECTIVE_SDL,
    definitions: [...RATE_LIMIT_DIRECTIVE_DEFINITIONS],
    transformer: (input) => implementations.reduce((s, i) => i.rateLimitDirectiveTransformer(s), input),
  };
}

/**
 * The library builds its own limiter with `new limiterClass(options)`. A constructor that returns
 * an object yields that object, so this one hands over the existing limiter: GraphQL fields and REST
 * calls of one caller spend from one counter, in memory as in Redis, with the configured limit.
 * That is how graphql-rate-limit-directive 2.0.6 builds it (pinned exactly in package.json);
 * test/http/rate-limit-directive.test.ts ("spends from the same counter as REST calls") fails when it changes.
 */
function sharedLimiterClass(limiter: RateLimiterAbstract): typeof RateLimiterAbstract {
  function SharedLimiter(): RateLimiterAbstract {
    return limiter;
  }
  return SharedLimiter as unknown as typeof RateLimiterAbstract;
}
