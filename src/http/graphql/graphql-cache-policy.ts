import { Kind, getOperationAST, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { ROUTES, type RestRoute } from '../routes';

/**
 * Cache-Control of a GraphQL GET answer, from the root fields its document selects, under the rule
 * of the REST route that serves each field (the route table, routes.ts): the catalogue (`static`)
 * for an hour, the registry and the latest rates (`latest-rates`) until the next publication, and
 * what a conversion or a key's account answers never (`no-store`). Two fields read rates of a day:
 * their answer for a day before the newest publication held can no longer change, so it lasts a
 * day; otherwise until the next publication. A keyed field, or a request that carries a key, makes
 * the whole answer `private`. The strictest field wins: `no-store` over everything, the shortest
 * max-age. A mutation, an unknown field or an answer with errors is `no-store`.
 *
 * Pure: the front and the Yoga path call it with the document they executed.
 */
export interface CacheFacts {
  /** Seconds an answer for the latest publication may be kept (until the next publication, at most an hour). */
  latestMaxAge: number;
  /** The newest publication held (YYYY-MM-DD): a day before it is settled. Null while none is held. */
  newestPublication: string | null;
  /** The request carries credentials (Authorization): its answer is the key's. */
  keyed: boolean;
}

type Freshness = { scope: 'public' | 'private'; maxAge: number } | 'no-store';

/** A day's answer that can no longer change is kept this long. */
export const SETTLED_MAX_AGE = 86_400;
const STATIC_MAX_AGE = 3_600;

/** The fields that read the rates of one day, and the argument that names it. */
const DAY_ARGUMENT: Readonly<Record<string, string>> = { rates: 'date', rateSeries: 'end' };

const ROUTE_OF_FIELD = new Map<string, RestRoute>(
  ROUTES.filter((route) => route.field !== undefined && route.method === 'GET').map((route) => [route.field!, route]),
);

export function graphQLCacheControl(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  facts: CacheFacts,
): string {
  const operation = getOperationAST(document, operationName);
  if (operation?.operation !== 'query') return 'no-store';
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let scope: 'public' | 'private' = facts.keyed ? 'private' : 'public';
  let maxAge = Number.POSITIVE_INFINITY;
  for (const field of rootFields(operation.selectionSet, fragments, new Set())) {
    const freshness = fieldFreshness(field.name, field.args, variables ?? {}, facts);
    if (freshness === 'no-store') return 'no-store';
    if (freshness.scope === 'private') scope = 'private';
    maxAge = Math.min(maxAge, freshness.maxAge);
  }
  if (maxAge === Number.POSITIVE_INFINITY) maxAge = STATIC_MAX_AGE;
  return `${scope}, max-age=${Math.max(0, Math.floor(maxAge))}`;
}

function fieldFreshness(
  name: string,
  args: ReadonlyMap<string, ValueNode>,
  variables: Readonly<Record<string, unknown>>,
  facts: CacheFacts,
): Freshness {
  if (name === '__typename' || name === '__schema' || name === '__type') return { scope: 'public', maxAge: STATIC_MAX_AGE };
  const route = ROUTE_OF_FIELD.get(name);
  if (route === undefined) return 'no-store';
  const scope = route.access === 'key' ? 'private' : 'public';
  const dayArgument = DAY_ARGUMENT[name];
  if (dayArgument !== undefined) {
    const day = argumentValue(args.get(dayArgument), variables);
    const settled = typeof day === 'string' && facts.newestPublication !== null && day < facts.newestPublication;
    return { scope, maxAge: settled ? SETTLED_MAX_AGE : facts.latestMaxAge };
  }
  if (route.cache === 'static') return { scope, maxAge: STATIC_MAX_AGE };
  if (route.cache === 'latest-rates') return { scope, maxAge: Math.min(STATIC_MAX_AGE, facts.latestMaxAge) };
  return 'no-store';
}

/** A literal string argument, or the string value of the variable it names; undefined otherwise. */
function argumentValue(node: ValueNode | undefined, variables: Readonly<Record<string, unknown>>): unknown {
  if (node === undefined) return undefined;
  if (node.kind === Kind.STRING) return node.value;
  if (node.kind === Kind.VARIABLE) return variables[node.name.value];
  return undefined;
}

interface RootField {
  name: string;
  args: ReadonlyMap<string, ValueNode>;
}

/** Every field the root selection set may run, through fragments and inline fragments (directives are not evaluated: a skipped field counts). */
function* rootFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  visited: Set<string>,
): Generator<RootField> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      yield { name: selection.name.value, args: new Map((selection.arguments ?? []).map((arg) => [arg.name.value, arg.value])) };
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      yield* rootFields(selection.selectionSet, fragments, visited);
    } else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment) yield* rootFields(fragment.selectionSet, fragments, visited);
    }
  }
}
