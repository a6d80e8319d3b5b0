import type { GraphQLField } from 'graphql';
import type { RateLimitKind } from '../domain/rate-limit';

/**
 * What a root field costs its caller, declared once on the field's Pothos definition (`...policy({...})`)
 * and read from the built schema everywhere else: the field's rate-limit directive, the access of
 * the REST route it backs (src/http/routes.ts), the document limits and cost plan (limits.ts,
 * cost.ts) and the edge's charge. test/graphql/field-policy.test.ts runs every field to check
 * that its resolver behaves as declared.
 */
export interface FieldPolicy {
  /** Anyone, spending the client IP's request limit, or an API key, spending the key's. */
  readonly access: RateLimitKind;
  /** On the fields that convert, and so are charged to the quota: one conversion, or one per item of a list argument. */
  readonly conversions?: 'one' | { readonly perItemOf: string };
  /** On a root field that answers a list: how many items it answers at most (its price counts each, see price.ts). */
  readonly items?: ListItems;
}

/**
 * How many items a list field answers at most, declared once on its definition and read by the
 * price of a document (price.ts): a number, or one item per item of a list argument of the root
 * field it is under (a batch's results, one per item sent).
 */
export type ListItems = number | { readonly perItemOf: string };

/** The key of a field's `extensions` that holds its policy. */
const POLICY = 'policy';
/** The key of a nested list field's `extensions` that holds its items (a root field's are in its policy). */
const ITEMS = 'listItems';

/** A nested list field's items, spread into its Pothos options. */
export function listItems(items: ListItems) {
  return { extensions: { [ITEMS]: items } } as const;
}

/** The items a list field declares (its policy's, for a root field); undefined when it declares none. */
export function listItemsOf(field: Pick<GraphQLField<unknown, unknown>, 'extensions'>): ListItems | undefined {
  return policyOf(field)?.items ?? (field.extensions[ITEMS] as ListItems | undefined);
}

/** A root field's policy, spread into its Pothos options: the directive that spends the request limit, and the policy itself. */
export function policy(declared: FieldPolicy) {
  return {
    directives: declared.access === 'key' ? { keyRateLimit: {} } : { publicRateLimit: {} },
    extensions: { [POLICY]: declared },
  } as const;
}

/** The policy a field was declared with; undefined for a field declared without one (the test of every field fails then). */
export function policyOf(field: Pick<GraphQLField<unknown, unknown>, 'extensions'>): FieldPolicy | undefined {
  return field.extensions[POLICY] as FieldPolicy | undefined;
}

/** How many conversions one call of a field asks for, from its coerced arguments: 0 for a field that does not convert. */
export function conversionsAsked(declared: FieldPolicy | undefined, args: Readonly<Record<string, unknown>>): number {
  const cost = declared?.conversions;
  if (cost === undefined) return 0;
  if (cost === 'one') return 1;
  const items = args[cost.perItemOf];
  if (Array.isArray(items)) return items.length;
  return items === null || items === undefined ? 0 : 1;
}
