import { Kind, type DefinitionNode, type DocumentNode, type SelectionSetNode } from 'graphql';

/** What one operation (or fragment) selects once every fragment spread in it is expanded. */
export interface Measure {
  /** Levels of fields; the fields under `__schema` and `__type` do not count (introspection is bounded on its own). */
  readonly depth: number;
  /** Fields selected, each fragment spread counted in full every time it occurs (introspection included). */
  readonly fields: number;
  /** Root fields named in `conversionFields`, aliases and spreads at the root included. */
  readonly conversions: number;
}

export interface DocumentMeasure {
  readonly operations: ReadonlyArray<Measure & { readonly name: string | undefined }>;
  /** One cycle of fragment spreads (`['A', 'B', 'A']`), when the fragments form any. */
  readonly cycle: readonly string[] | undefined;
  /** Selections looked at: each selection of the document exactly once, whatever the fragments do. */
  readonly selectionsVisited: number;
}

const INTROSPECTION_ROOTS: ReadonlySet<string> = new Set(['__schema', '__type']);

/** A spread as seen from the body that contains it. */
interface Spread {
  readonly name: string;
  /** Levels of fields between the body's top and the spread. */
  readonly depth: number;
  /** Directly at the body's top (through inline fragments at most): its root fields are root fields here. */
  readonly atTop: boolean;
  /** Under an introspection field: its depth does not count. */
  readonly inIntrospection: boolean;
}

/** A body (operation or fragment) measured on its own, its spreads not yet followed. */
interface Body extends Measure {
  readonly spreads: readonly Spread[];
}

/**
 * Measures every operation of a document in time linear in the document: each body is scanned once,
 * then the fragments are combined in dependency order (Kahn's algorithm, no recursion across
 * fragments), so a document of doubled spreads (`fragment F0 { ...F1 ...F1 }` ...) costs one visit
 * per selection however large its expansion. Fragment cycles are found on the way; spreads of
 * fragments in a cycle or of unknown fragments are left out (validation reports them).
 */
export function measureDocument(document: DocumentNode, conversionFields: ReadonlySet<string>): DocumentMeasure {
  let visited = 0;
  const scan = (set: SelectionSetNode): Body => {
    const spreads: Spread[] = [];
    let depth = 0;
    let fields = 0;
    let conversions = 0;
    // Recursion here follows the document's own nesting, which the bracket limit keeps shallow.
    const walk = (selections: SelectionSetNode, level: number, atTop: boolean, inIntrospection: boolean): void => {
      for (const selection of selections.selections) {
        visited++;
        if (selection.kind === Kind.FIELD) {
          fields++;
          if (atTop && conversionFields.has(selection.name.value)) conversions++;
          const introspection = inIntrospection || INTROSPECTION_ROOTS.has(selection.name.value);
          if (!introspection) depth = Math.max(depth, level + 1);
          if (selection.selectionSet) walk(selection.selectionSet, level + 1, false, introspection);
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          walk(selection.selectionSet, level, atTop, inIntrospection);
        } else {
          spreads.push({ name: selection.name.value, depth: level, atTop, inIntrospection });
        }
      }
    };
    walk(set, 0, true, false);
    return { depth, fields, conversions, spreads };
  };

  const fragments = new Map<string, Body>();
  const operations: Array<{ name: string | undefined; body: Body }> = [];
  for (const definition of document.definitions as readonly DefinitionNode[]) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(definition.name.value)) {
      fragments.set(definition.name.value, scan(definition.selectionSet));
    } else if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations.push({ name: definition.name?.value, body: scan(definition.selectionSet) });
    }
  }

  const measured = combineFragments(fragments);
  return {
    operations: operations.map(({ name, body }) => ({ name, ...combine(body, measured.summaries) })),
    cycle: measured.cycle,
    selectionsVisited: visited,
  };
}

/** A body with the measures of the fragments it spreads (those measured so far). */
function combine(body: Body, summaries: ReadonlyMap<string, Measure>): Measure {
  let { depth, fields, conversions } = body;
  for (const spread of body.spreads) {
    const inner = summaries.get(spread.name);
    if (!inner) continue;
    if (!spread.inIntrospection) depth = Math.max(depth, spread.depth + inner.depth);
    // Saturates at Infinity on absurd expansions; only comparisons with the limits follow.
    fields += inner.fields;
    if (spread.atTop) conversions += inner.conversions;
  }
  return { depth, fields, conversions };
}

/** Measures fragments in dependency order, each once; those left over form cycles. */
function combineFragments(fragments: ReadonlyMap<string, Body>): { summaries: Map<string, Measure>; cycle: string[] | undefined } {
  const dependsOn = new Map<string, Set<string>>();
  const dependents = new Map<string, string[]>();
  for (const [name, body] of fragments) {
    const needs = new Set(body.spreads.map((s) => s.name).filter((n) => fragments.has(n)));
    dependsOn.set(name, needs);
    for (const need of needs) {
      const list = dependents.get(need);
      if (list) list.push(name);
      else dependents.set(need, [name]);
    }
  }
  const waiting = new Map([...dependsOn].map(([name, needs]) => [name, needs.size]));
  const ready = [...waiting].filter(([, count]) => count === 0).map(([name]) => name);
  const summaries = new Map<string, Measure>();
  while (ready.length > 0) {
    const name = ready.pop()!;
    summaries.set(name, combine(fragments.get(name)!, summaries));
    for (const dependent of dependents.get(name) ?? []) {
      const left = waiting.get(dependent)! - 1;
      waiting.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  if (summaries.size === fragments.size) return { summaries, cycle: undefined };
  // Every fragment left depends on another one left: walking such edges must come back to a fragment seen.
  const left = (name: string) => [...dependsOn.get(name)!].find((need) => !summaries.has(need))!;
  const path = [[...fragments.keys()].find((name) => !summaries.has(name))!];
  const seenAt = new Map([[path[0]!, 0]]);
  for (;;) {
    const next = left(path[path.length - 1]!);
    const at = seenAt.get(next);
    if (at !== undefined) return { summaries, cycle: [...path.slice(at), next] };
    seenAt.set(next, path.length);
    path.push(next);
  }
}
