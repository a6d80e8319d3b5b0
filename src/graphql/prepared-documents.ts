import { execute, GraphQLError, parse, validate, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { ByteBoundedCache, documentBytes } from './document-cache';

/**
 * Documents as the executor of GraphQL requests keeps them, by their exact text: parsed once,
 * validated once, and compiled by graphql-jit once they are run again. The parsed documents are
 * bounded by the estimated bytes they hold (document-cache.ts), least recently used first; what
 * hangs off one (its validation errors, its compiled operations) leaves with it. Parse errors
 * are kept apart, within a sixteenth of the budget.
 *
 * A document's operation is compiled on its second execution, not its first: a flood of distinct
 * documents costs a graphql-js execution each, never a compilation each. What graphql-jit cannot
 * compile (it answers errors, or throws) runs on graphql-js's `execute`, whose answer is the
 * reference either way; so do variables the compiled operation refuses (graphql-js words the
 * reasons, the scalar's own included).
 */
export interface PreparedDocument {
  readonly document: DocumentNode;
  /** Validation's errors (the caller's checks, then graphql-js's rules), once validated. */
  validationErrors: readonly GraphQLError[] | undefined;
  /** Executions so far, by operation name (`''` for none), and the compiled operation once there is one (null: graphql-js runs it). */
  readonly operations: Map<string, { runs: number; compiled: CompiledQuery | null | undefined }>;
}

export interface ExecutionArgs {
  contextValue: unknown;
  variableValues: Readonly<Record<string, unknown>> | null | undefined;
  operationName: string | null | undefined;
}

/** Runs before compiling an operation: how often the same operation of a document runs first on graphql-js. */
const RUNS_BEFORE_COMPILING = 1;

export class PreparedDocuments {
  private readonly documents: ByteBoundedCache<PreparedDocument>;
  private readonly parseErrors: ByteBoundedCache<GraphQLError>;

  constructor(
    private readonly schema: GraphQLSchema,
    maxBytes: number,
  ) {
    this.documents = new ByteBoundedCache<PreparedDocument>({ maxBytes, maxEntries: 1024 }, (text, prepared) =>
      documentBytes(text, prepared.document),
    );
    this.parseErrors = new ByteBoundedCache<GraphQLError>({ maxBytes: maxBytes / 16, maxEntries: 1024 }, (text) => 4 * text.length + 2048);
  }

  /** The estimated bytes the parsed documents hold now (for tests). */
  get bytes(): number {
    return this.documents.bytes;
  }

  /** The document of this text, parsed once; throws its syntax error (the same error object each time, as kept). */
  parse(text: string): PreparedDocument {
    const known = this.documents.get(text);
    if (known !== undefined) return known;
    const failed = this.parseErrors.get(text);
    if (failed !== undefined) throw failed;
    let document: DocumentNode;
    try {
      document = parse(text);
    } catch (error) {
      if (error instanceof GraphQLError) this.parseErrors.set(text, error);
      throw error;
    }
    const prepared: PreparedDocument = { document, validationErrors: undefined, operations: new Map() };
    this.documents.set(text, prepared);
    return prepared;
  }

  /**
   * The document's validation errors, worked out once: `first`'s errors when it has any (graphql-js's
   * rules then never see the document), else graphql-js's specified rules'; `mark` is applied to
   * each error once, when they are found.
   */
  validate(
    prepared: PreparedDocument,
    first: (document: DocumentNode) => readonly GraphQLError[],
    mark: (error: GraphQLError) => void,
  ): readonly GraphQLError[] {
    if (prepared.validationErrors !== undefined) return prepared.validationErrors;
    const before = first(prepared.document);
    const errors = before.length > 0 ? before : validate(this.schema, prepared.document);
    for (const error of errors) mark(error);
    prepared.validationErrors = errors;
    return errors;
  }

  /** Executes a validated document: compiled once its operation ran before, on graphql-js until then and whenever graphql-jit cannot compile it. */
  execute(prepared: PreparedDocument, args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    const key = args.operationName ?? '';
    let operation = prepared.operations.get(key);
    if (operation === undefined) {
      operation = { runs: 0, compiled: undefined };
      prepared.operations.set(key, operation);
    }
    operation.runs += 1;
    if (operation.compiled === undefined && operation.runs > RUNS_BEFORE_COMPILING)
      operation.compiled = this.compile(prepared.document, args.operationName);
    if (!operation.compiled) return this.executeOnGraphQLJs(prepared.document, args);
    const result = operation.compiled.query(undefined, args.contextValue, args.variableValues);
    const settled = (compiled: ExecutionResult) => ('data' in compiled ? compiled : this.executeOnGraphQLJs(prepared.document, args));
    return result instanceof Promise ? result.then(settled) : settled(result);
  }

  /**
   * graphql-js's execution. Also the answer when the compiled operation refused its variables
   * (a result without `data`: no resolver ran), whose messages graphql-js words its own way.
   */
  private executeOnGraphQLJs(document: DocumentNode, args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> {
    return execute({
      schema: this.schema,
      document,
      contextValue: args.contextValue,
      variableValues: args.variableValues,
      operationName: args.operationName,
    });
  }

  private compile(document: DocumentNode, operationName: string | null | undefined): CompiledQuery | null {
    try {
      const compiled = compileQuery(this.schema, document, operationName ?? undefined, { disablingCapturingStackErrors: true });
      return isCompiledQuery(compiled) ? compiled : null;
    } catch {
      return null;
    }
  }
}
