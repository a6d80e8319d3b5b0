import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type DirectiveNode,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { included, operationOf, type Variables } from './selections';
import { listItemsOf, type ListItems } from './field-policy';

/**
 * The price list of a GraphQL document, in requests of the caller's rate limit (its key's, or its
 * client IP's), known before anything executes:
 *
 * - each root field (each response key: an alias is a field of its own) costs one request per
 *   VALUES_PER_REQUEST values its answer holds, and at least one; `__typename` costs nothing;
 * - a value is a field of the answer (a scalar, an object, or one string of a list of strings);
 *   a list field holds the items its definition declares (`items` in a root field's policy,
 *   `listItems` on a nested one: `units` 154, a category's units 18, a batch's results one per item
 *   sent), and the fields selected under it count once per item;
 * - a document costs the sum over its root fields, and at least one request;
 * - and at least its text's price (textPrice): one request per DOCUMENT_BYTES_PER_REQUEST bytes.
 *
 * So `{ convert(...) { result { value } } }` costs 1, `{ units { id name symbol } }` (463 values)
 * 1, every field of every unit (2,773 values) 3, and 990 aliases of `units { id }` 990.
 */
export const VALUES_PER_REQUEST = 1000;

/**
 * A text is parsed and validated before its fields can be priced, and that work grows with the
 * text: so a document's text has a price of its own, known from its length before it is parsed,
 * and spent then (the fields' price, once it validated, spends only what it adds). One request
 * per this many bytes of the text (UTF-8), at least one: a document of the largest size the
 * limits allow (16 KiB) costs at least 16, however few fields it asks for, so a key sending
 * huge documents never seen before, each one parsed once, is held to a few a second.
 */
export const DOCUMENT_BYTES_PER_REQUEST = 1024;

/** The price of a document's text, before it is parsed (see DOCUMENT_BYTES_PER_REQUEST). */
export function textPrice(text: string): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(text) / DOCUMENT_BYTES_PER_REQUEST));
}

/** A list field that declares no items is priced at this many (test/graphql/price.test.ts checks that every list declares). */
export const UNDECLARED_LIST_ITEMS = 100;

interface Walk {
  readonly schema: GraphQLSchema;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly variables: Variables;
  /** The root field being priced: a `perItemOf` list counts the items of its argument. */
  root: FieldNode | undefined;
  /** A variable was read: the price holds for these variables only, and is not remembered. */
  readVariables: boolean;
}

/** A document's price, and whether it read the request's variables (then it holds for those variables only). */
export interface Price {
  readonly requests: number;
  readonly readsVariables: boolean;
}

/**
 * The requests of the rate limit the operation costs (see VALUES_PER_REQUEST), for a document that
 * passed validation and the document limits (at most 2,000 fields once fragments are expanded, no
 * fragment cycles), so the walk is bounded. `@skip` and `@include` are honoured. A price that reads
 * no variable is the document text's (known-prices.ts remembers it).
 */
export function documentPrice(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Variables,
): Price {
  const operation = operationOf(document, operationName);
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return { requests: 1, readsVariables: false };
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, definition);
    }
  }
  const walk: Walk = { schema, fragments, variables, root: undefined, readVariables: false };
  const byKey = new Map<string, number>();
  forEachField(operation.selectionSet, rootType, walk, (field, parent) => {
    if (field.name.value === '__typename') return;
    walk.root = field;
    const key = field.alias?.value ?? field.name.value;
    byKey.set(key, (byKey.get(key) ?? 0) + fieldValues(field, parent, walk));
  });
  let requests = 0;
  for (const values of byKey.values()) requests += Math.max(1, Math.ceil(values / VALUES_PER_REQUEST));
  return { requests: Math.max(1, requests), readsVariables: walk.readVariables };
}

/** The values a field's answer holds: itself, and what it selects (per item, for a list). */
function fieldValues(field: FieldNode, parent: GraphQLNamedType | undefined, walk: Walk): number {
  const definition = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[field.name.value] : undefined;
  // `__typename`, or an introspection root field (bounded by graphql-js's own rule).
  if (!definition) return 1;
  let perItem = 1;
  if (field.selectionSet) {
    perItem = 0;
    forEachField(field.selectionSet, getNamedType(definition.type), walk, (inner, innerParent) => {
      perItem += fieldValues(inner, innerParent, walk);
    });
  }
  if (!isListType(getNullableType(definition.type))) return field.selectionSet ? 1 + perItem : 1;
  return 1 + itemsOf(listItemsOf(definition), walk) * perItem;
}

/** Calls `visit` for each field the selection set selects, through inline fragments and spreads, with the type it is selected on. */
function forEachField(
  set: SelectionSetNode,
  type: GraphQLNamedType | undefined,
  walk: Walk,
  visit: (field: FieldNode, parent: GraphQLNamedType | undefined) => void,
): void {
  for (const selection of set.selections) {
    if (!kept(selection.directives, walk)) continue;
    if (selection.kind === Kind.FIELD) {
      visit(selection, type);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      forEachField(selection.selectionSet, on ?? undefined, walk, visit);
    } else {
      const fragment = walk.fragments.get(selection.name.value);
      if (fragment) forEachField(fragment.selectionSet, walk.schema.getType(fragment.typeCondition.name.value) ?? undefined, walk, visit);
    }
  }
}

/** A declared list's items: its number, or the items of the root field's list argument (a single object where a list is expected is a list of one). */
function itemsOf(declared: ListItems | undefined, walk: Walk): number {
  if (declared === undefined) return UNDECLARED_LIST_ITEMS;
  if (typeof declared === 'number') return declared;
  const items = walk.root?.arguments?.find((a) => a.name.value === declared.perItemOf)?.value;
  if (!items) return 0;
  if (items.kind === Kind.LIST) return items.values.length;
  if (items.kind === Kind.VARIABLE) {
    walk.readVariables = true;
    const value = walk.variables?.[items.name.value];
    if (Array.isArray(value)) return value.length;
    return value === null || value === undefined ? 0 : 1;
  }
  return 1;
}

/** `@skip` and `@include`, noting a condition that reads a variable. */
function kept(directives: readonly DirectiveNode[] | undefined, walk: Walk): boolean {
  if (directives?.some((d) => d.arguments?.some((a) => a.value.kind === Kind.VARIABLE))) walk.readVariables = true;
  return included(directives, walk.variables);
}
