import { ApiError } from '../domain/errors';
import {
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  Lexer,
  Source,
  TokenKind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/** Contract section 7: limits on one GraphQL document. */
export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxConversionFields: 50,
  maxDocumentBytes: 16 * 1024,
  /** Brackets, braces and parentheses inside one another: far more than any document within the depth limit needs. */
  maxNesting: 64,
} as const;

/** The Query fields that convert (and so cost quota); each occurrence in a document counts. */
export const CONVERSION_FIELDS: ReadonlySet<string> = new Set(['convert', 'convertPost', 'convertCurrency', 'batch']);

const OPENING: ReadonlySet<string> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING: ReadonlySet<string> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * How deeply the document's brackets, braces and parentheses nest, counted on tokens (strings and
 * comments do not count). graphql-js parses recursively: 16 KiB of `[` overflows the stack in
 * `parse`, so this is checked before parsing. A document that does not lex is left to the parser.
 */
export function nestingOf(document: string): number {
  const lexer = new Lexer(new Source(document));
  let depth = 0;
  let deepest = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (OPENING.has(token.kind)) deepest = Math.max(deepest, ++depth);
      else if (CLOSING.has(token.kind)) depth--;
    }
  } catch {
    // a syntax error: parse reports it
  }
  return deepest;
}

/** The operation name GraphiQL (served at GET /graphql) gives its introspection query. */
export const PLAYGROUND_INTROSPECTION = 'MeasurementApiPlaygroundIntrospection';

/**
 * GraphiQL's introspection query is about 15 levels deep (nested `ofType`), so the depth limit would
 * leave the playground without docs or completion. Only that named operation, made of introspection
 * fields alone, is exempt; it stays under the 64-level nesting and 16 KiB limits, and introspection
 * of this small schema is cheap.
 */
function isPlaygroundIntrospection(operation: OperationDefinitionNode): boolean {
  return (
    operation.name?.value === PLAYGROUND_INTROSPECTION &&
    operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith('__'))
  );
}

/** The code and status are filled in from the error table when the result is sent (use-error-codes). */
function invalid(message: string): GraphQLError {
  return new GraphQLError(message, { originalError: new ApiError('INVALID_REQUEST', message) });
}

/**
 * Refuses documents deeper than `maxDepth` and with more than `maxConversionFields` conversion
 * fields (aliases and fragment spreads included). Fragment cycles are guarded here too, since
 * custom rules may run before graphql's own NoFragmentCycles report.
 */
export function documentLimitsRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }

  const measure = (set: SelectionSetNode, depth: number, seen: ReadonlySet<string>, top: boolean): { depth: number; conversions: number } => {
    let deepest = depth;
    let conversions = 0;
    for (const selection of set.selections) {
      let inner: { depth: number; conversions: number } | undefined;
      if (selection.kind === Kind.FIELD) {
        if (top && CONVERSION_FIELDS.has(selection.name.value)) conversions += 1;
        inner = selection.selectionSet ? measure(selection.selectionSet, depth + 1, seen, false) : { depth: depth + 1, conversions: 0 };
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = measure(selection.selectionSet, depth, seen, top);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || seen.has(fragment.name.value)) continue;
        inner = measure(fragment.selectionSet, depth, new Set([...seen, fragment.name.value]), top);
      }
      deepest = Math.max(deepest, inner.depth);
      conversions += inner.conversions;
    }
    return { depth: deepest, conversions };
  };

  return {
    OperationDefinition(operation) {
      const { depth, conversions } = measure(operation.selectionSet, 0, new Set(), true);
      if (depth > GRAPHQL_LIMITS.maxDepth && !isPlaygroundIntrospection(operation)) {
        context.reportError(invalid(`The document is ${depth} levels deep; at most ${GRAPHQL_LIMITS.maxDepth} are allowed.`));
      }
      if (conversions > GRAPHQL_LIMITS.maxConversionFields) {
        context.reportError(invalid(`The document has ${conversions} conversion fields; at most ${GRAPHQL_LIMITS.maxConversionFields} are allowed.`));
      }
    },
  };
}
