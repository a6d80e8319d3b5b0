import { Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { PlannedConversion } from '../services/request-context';
import { QUERY_POLICIES } from './policies';
import { included, operationOf, type Variables } from './selections';

/** Contract section 10: conversion fields plus batch items, at most this many per document. */
export const MAX_CONVERSIONS_PER_DOCUMENT = 1000;

/**
 * The conversion fields the operation will execute, in document order, with the conversions each
 * asks for (1, or a batch's item count, from its literal list or its variable): known before
 * execution, so that a document's cost is checked, and shared against the quota, before anything is
 * computed. Fields with one response key merge into one execution and count once; a fragment is
 * read once (a doubled spread adds nothing new), so the work is linear in the document.
 * Conversion fields are root Query fields, so only the root selection set and the fragments it
 * spreads are read. `@skip` and `@include` are honoured.
 */
export function plannedConversions(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Variables,
): PlannedConversion[] {
  const operation = operationOf(document, operationName);
  if (!operation || operation.operation !== 'query') return [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const planned = new Map<string, PlannedConversion>();
  const read = new Set<string>();
  const visit = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (!included(selection.directives, variables)) continue;
      if (selection.kind === Kind.FIELD) {
        const responseKey = selection.alias?.value ?? selection.name.value;
        const cost = QUERY_POLICIES.get(selection.name.value)?.conversions;
        if (cost !== undefined && !planned.has(responseKey)) {
          planned.set(responseKey, { responseKey, conversions: cost === 'one' ? 1 : itemsOf(selection, cost.perItemOf, variables) });
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        visit(selection.selectionSet);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || read.has(fragment.name.value)) continue;
        read.add(fragment.name.value);
        visit(fragment.selectionSet);
      }
    }
  };
  visit(operation.selectionSet);
  return [...planned.values()];
}

export function totalConversions(plan: readonly PlannedConversion[]): number {
  return plan.reduce((sum, field) => sum + field.conversions, 0);
}

/** A field charged per item asks for one conversion per item of that argument; a single object where a list is expected is a list of one. */
function itemsOf(field: FieldNode, argument: string, variables: Variables): number {
  const items = field.arguments?.find((a) => a.name.value === argument)?.value;
  if (!items) return 0;
  if (items.kind === Kind.LIST) return items.values.length;
  if (items.kind === Kind.VARIABLE) {
    const value = variables?.[items.name.value];
    if (Array.isArray(value)) return value.length;
    return value === null || value === undefined ? 0 : 1;
  }
  return 1;
}
