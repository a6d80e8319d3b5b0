import { ApiError } from '../domain/errors';
import { GraphQLError, Lexer, Source, TokenKind, type ASTVisitor, type DocumentNode, type ValidationContext } from 'graphql';
import { measureDocument } from './measure-document';
import { CONVERSION_FIELDS } from './policies';

/** Contract section 7: limits on one GraphQL document. */
export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxConversionFields: 50,
  /** Fields once fragments are expanded (each spread in full): far more than real clients select, so fragments cannot multiply a small document into a huge answer. */
  maxFields: 2000,
  maxDocumentBytes: 16 * 1024,
  /** Brackets, braces and parentheses inside one another: far more than any document within the depth limit needs. */
  maxNesting: 64,
} as const;

/** The Query fields that convert, as their policies declare (field-policy.ts). */
export { CONVERSION_FIELDS };

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

/** The code and status are filled in from the error table when the result is sent (error-codes.ts). */
function invalid(message: string): GraphQLError {
  return new GraphQLError(message, { originalError: new ApiError('INVALID_REQUEST', message) });
}

const counted = (n: number) =>
  n > Number.MAX_SAFE_INTEGER ? `more than ${Number.MAX_SAFE_INTEGER.toLocaleString('en-US')}` : n.toLocaleString('en-US');

/**
 * The document's breaches of the limits: depth over `maxDepth` (introspection fields excepted:
 * graphql's MaxIntrospectionDepthRule bounds them), over `maxFields` fields or over
 * `maxConversionFields` conversion fields once fragments are expanded, or a fragment cycle.
 * Linear in the document (see measureDocument), so it can run before graphql's own rules.
 */
export function documentLimitErrors(document: DocumentNode): GraphQLError[] {
  const measure = measureDocument(document, CONVERSION_FIELDS);
  const errors: GraphQLError[] = [];
  if (measure.cycle) {
    const cycle = measure.cycle;
    const path =
      cycle.length <= 8
        ? cycle.join(' → ')
        : `${cycle.slice(0, 3).join(' → ')} → … → ${cycle.slice(-2).join(' → ')}, ${cycle.length - 1} fragments`;
    errors.push(invalid(`Fragment "${cycle[0]}" spreads itself (${path}); fragments cannot form cycles.`));
  }
  for (const { depth, fields, conversions } of measure.operations) {
    if (depth > GRAPHQL_LIMITS.maxDepth) {
      errors.push(
        invalid(
          `The document is ${depth} levels deep; at most ${GRAPHQL_LIMITS.maxDepth} are allowed (introspection fields do not count).`,
        ),
      );
    }
    if (fields > GRAPHQL_LIMITS.maxFields) {
      errors.push(
        invalid(
          `The document selects ${counted(fields)} fields once its fragments are expanded; at most ${counted(GRAPHQL_LIMITS.maxFields)} are allowed.`,
        ),
      );
    }
    if (conversions > GRAPHQL_LIMITS.maxConversionFields) {
      errors.push(
        invalid(`The document has ${counted(conversions)} conversion fields; at most ${GRAPHQL_LIMITS.maxConversionFields} are allowed.`),
      );
    }
  }
  return errors;
}

/** documentLimitErrors as a validation rule, for graphql's `validate` (the server checks before validating). */
export function documentLimitsRule(context: ValidationContext): ASTVisitor {
  return {
    Document(document) {
      for (const error of documentLimitErrors(document)) context.reportError(error);
      return false;
    },
  };
}
