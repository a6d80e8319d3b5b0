import {
  defaultFieldResolver,
  isObjectType,
  type GraphQLDirective,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import { rateLimitDirective } from 'graphql-rate-limit-directive';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import {
  RATE_LIMIT_DIRECTIVE_DEFINITIONS,
  RATE_LIMIT_DIRECTIVE_NAMES,
  RATE_LIMIT_DIRECTIVE_SDL,
} from '../../graphql/rate-limit-directives';
import {
  RATE_LIMIT_KINDS,
  rateLimitExceeded,
  rateLimitState,
  type RateLimiters,
  type RateLimitKind,
  type RateLimitState,
} from './rate-limit';

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
interface RateLimitDirectiveOptions<TContext> {
  /**
   * The caller's bucket, the same string REST passes to consume(): `rateLimitBucket(ip)` for
   * 'public', the API key's id for 'key' (throwing UNAUTHORIZED there is fine: it surfaces as is).
   */
  bucketOf(kind: RateLimitKind, context: TContext, info: GraphQLResolveInfo): string | Promise<string>;
  /** Receives the state after every spend, e.g. to put RateLimit headers on the response. */
  onState?(state: RateLimitState, context: TContext): void;
  /**
   * Whether a field of `kind` spends one request (default: every field does). When it does not (the
   * request's own spend paid for it), the field's resolver runs as it is: no limiter call and no
   * promise around it. When it does, the library spends it.
   */
  fieldSpends?(context: TContext, kind: RateLimitKind): boolean;
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
    transformer: (input) => {
      // Taken before the library's transform, which may wrap a type's fields in place.
      const own = ownResolvers<TContext>(input);
      const limited = implementations.reduce((s, i) => i.rateLimitDirectiveTransformer(s), input);
      return options.fieldSpends ? spendingOnlyWhenDue(own, limited, options.fieldSpends) : limited;
    },
  };
}

/**
 * The library wraps every rate-limited resolver in an async function: a promise per field, even
 * when it spends nothing. Each such field of `limited` becomes a choice made without a promise:
 * the library's resolver when the field spends (`fieldSpends`), else the field's own resolver (`own`,
 * as they were before the library's transform). A field under both directives keeps the library's
 * resolvers.
 */
function spendingOnlyWhenDue<TContext>(
  own: ReadonlyMap<string, GraphQLFieldResolver<unknown, TContext>>,
  limited: GraphQLSchema,
  fieldSpends: (context: TContext, kind: RateLimitKind) => boolean,
): GraphQLSchema {
  return mapSchema(limited, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const type = limited.getType(typeName)!;
      const kinds = RATE_LIMIT_KINDS.filter(
        (kind) =>
          getDirective(limited, field, RATE_LIMIT_DIRECTIVE_NAMES[kind]) ?? getDirective(limited, type, RATE_LIMIT_DIRECTIVE_NAMES[kind]),
      );
      const [kind] = kinds;
      if (kind === undefined || kinds.length > 1 || !field.resolve) return field;
      const unlimited = own.get(`${typeName}.${fieldName}`) ?? defaultFieldResolver;
      const spending = field.resolve as GraphQLFieldResolver<unknown, TContext>;
      const resolve: GraphQLFieldResolver<unknown, TContext> = (source, args, context, info) =>
        (fieldSpends(context, kind) ? spending : unlimited)(source, args, context, info);
      return { ...field, resolve };
    },
  });
}

/** Every object field's resolver, by `Type.field` (none for graphql-js's default). */
function ownResolvers<TContext>(schema: GraphQLSchema): Map<string, GraphQLFieldResolver<unknown, TContext>> {
  const resolvers = new Map<string, GraphQLFieldResolver<unknown, TContext>>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields()))
      if (field.resolve) resolvers.set(`${type.name}.${field.name}`, field.resolve as GraphQLFieldResolver<unknown, TContext>);
  }
  return resolvers;
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
