import {
  coerceInputValue,
  getNamedType,
  GraphQLError,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';
import { ApiError } from '../../domain/errors';
import { didYouMean, nearestNames } from '../../domain/nearest-names';
import { quoteInput, shownInput } from '../../domain/quote-input';
import type { RestRoute } from '../routes';

/** What checkRestInput reads of a query string: URLSearchParams, or the plain reading of queryParams. */
export interface QueryParams {
  keys(): IterableIterator<string>;
  getAll(name: string): string[];
}

/** A query without percent-encoding, `+`, a leading `?` or anything but these characters reads as split text. */
const PLAIN_QUERY = /^(?!\?)[A-Za-z0-9._~\-=&:,]*$/;

/**
 * The parameters of a query string (the text after `?`), exactly as URLSearchParams reads them.
 * A plain query (no `%`, no `+`: nothing to decode) is only split on `&` and the first `=`, which
 * is all the URL standard's form-urlencoded parser does to it; any other goes to URLSearchParams.
 */
export function queryParams(query: string): QueryParams {
  if (query === '') return NO_PARAMS;
  if (!PLAIN_QUERY.test(query)) return new URLSearchParams(query);
  const names: string[] = [];
  const values: string[] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    names.push(equals < 0 ? pair : pair.slice(0, equals));
    values.push(equals < 0 ? '' : pair.slice(equals + 1));
  }
  return new PlainQuery(names, values);
}

/** A plain query read by queryParams: its names and values in order, side by side (a handful: no index). */
class PlainQuery implements QueryParams {
  constructor(
    readonly names: readonly string[],
    readonly values: readonly string[],
  ) {}

  keys(): IterableIterator<string> {
    return this.names.values();
  }

  getAll(name: string): string[] {
    const found: string[] = [];
    for (let i = 0; i < this.names.length; i++) if (this.names[i] === name) found.push(this.values[i]!);
    return found;
  }
}

const NO_PARAMS: QueryParams = { keys: () => [].values(), getAll: () => [] };

/** " (did you mean symbols?)": the route's inputs (not those of its path) nearest to an unknown name. */
function nearestInput(name: string, byName: ReadonlyMap<string, unknown>, fromPath: (name: string) => boolean): string {
  return didYouMean(
    nearestNames(
      name,
      [...byName.keys()].filter((input) => !fromPath(input)),
    ),
  );
}

/**
 * Checks a REST request's inputs against the GraphQL arguments of its field, strictly, before SOFA
 * sees them: SOFA coerces scalars with `serialize()` (so `true` would pass as the Int 1) and merges
 * query string and body. Here a JSON body is checked as GraphQL variables are (no coercion), and a
 * query string value is parsed by its argument's type. Returns the arguments as the field's resolver
 * receives them (coerced once, here), for callers that resolve the field directly.
 */
export function checkRestInput(
  route: RestRoute,
  args: readonly GraphQLArgument[],
  pathParams: Record<string, string>,
  search: QueryParams,
  body: unknown,
): Record<string, unknown> {
  const { byName, checks } = compiled(args);
  const fromPath = (name: string) => Object.hasOwn(pathParams, name);
  const inputs: Record<string, unknown> = { ...pathParams };

  if (route.method === 'POST') {
    const first = search.keys().next();
    if (!first.done) {
      throw new ApiError('INVALID_REQUEST', `Query parameters are not accepted on POST ${route.path}; send every field in the JSON body.`, {
        param: shownInput(first.value),
      });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object.');
    }
    for (const [name, value] of Object.entries(body)) {
      if (!byName.has(name) || fromPath(name))
        throw new ApiError('INVALID_REQUEST', `Unknown field ${quoteInput(name)}${nearestInput(name, byName, fromPath)}.`, {
          param: shownInput(name),
        });
      inputs[name] = value;
    }
  } else {
    // Each name once, in the order of its first appearance (a plain query is read in place).
    const plain = search instanceof PlainQuery ? search : undefined;
    const names = plain ? plain.names : [...search.keys()];
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (names.indexOf(name) !== i) continue;
      const arg = byName.get(name);
      if (!arg || fromPath(name))
        throw new ApiError('INVALID_REQUEST', `Unknown query parameter ${quoteInput(name)}${nearestInput(name, byName, fromPath)}.`, {
          param: shownInput(name),
        });
      if (names.indexOf(name, i + 1) >= 0)
        throw new ApiError('INVALID_REQUEST', `Query parameter '${name}' is given more than once.`, { param: name });
      inputs[name] = fromQueryString(plain ? plain.values[i]! : search.getAll(name)[0]!, arg, name);
    }
  }

  return coerceChecked(checks, inputs);
}

/** The inputs coerced by their arguments' types: the compiled check first, coerceInputValue's own errors otherwise. */
function coerceChecked(checks: readonly ArgCheck[], inputs: Record<string, unknown>): Record<string, unknown> {
  const coerced: Record<string, unknown> = {};
  for (const arg of checks) {
    const value = inputs[arg.name];
    if (value === undefined || value === null) {
      if (arg.nonNull) throw new ApiError('INVALID_REQUEST', `'${arg.name}' is required.`, { param: arg.name });
      if (value === null) coerced[arg.name] = null;
      continue;
    }
    // GraphQL would take a lone value as a list of one; a JSON body must send the array it documents.
    if (arg.list && !Array.isArray(value)) {
      throw new ApiError('INVALID_REQUEST', `'${arg.name}' must be an array.`, { param: arg.name });
    }
    if (arg.leaf) {
      coerced[arg.name] = parseLeaf(arg.leaf, value, arg.name);
      continue;
    }
    // Lists and input objects: the compiled check when the value is valid (the common case); on the
    // first problem coerceInputValue runs on the whole value, so errors are exactly its own.
    const fast = arg.check!(value);
    if (fast !== INVALID) {
      coerced[arg.name] = fast;
      continue;
    }
    // Every problem is collected, and an unknown field is reported before the rest: a field sent
    // under a misspelt name (`form`) also leaves its own name missing, and the first says both.
    const problems: ApiError[] = [];
    const result: unknown = coerceInputValue(value, arg.type, (path, _invalid, error) => {
      const param = path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${key}`), arg.name);
      problems.push(new ApiError('INVALID_REQUEST', describeCoercionError(param, error.message, enumValuesAt(arg.type, path)), { param }));
    });
    if (problems.length > 0) throw problems.find((p) => UNKNOWN_FIELD_MESSAGE.test(p.message)) ?? problems[0]!;
    coerced[arg.name] = result;
  }
  return coerced;
}

/** What checkRestInput needs to know of one argument's type, worked out once per field. */
interface ArgCheck {
  name: string;
  type: GraphQLArgument['type'];
  nonNull: boolean;
  list: boolean;
  /** The scalar or enum of a (non-null) scalar or enum argument, checked without coerceInputValue. */
  leaf: GraphQLScalarType | GraphQLEnumType | undefined;
  /** coerceInputValue's result for a valid value, INVALID where it would report an error. */
  check: Check | undefined;
  /** How a query string value is read: a whole number, a boolean, a comma list (a list of strings), refused (any other list) or as text. */
  query: 'Int' | 'Boolean' | 'comma-list' | 'list' | 'text';
}

const compiledArgs = new WeakMap<readonly GraphQLArgument[], { byName: Map<string, ArgCheck>; checks: ArgCheck[] }>();

/** A field's argument list never changes once the schema is built: its checks are worked out once. */
function compiled(args: readonly GraphQLArgument[]) {
  let found = compiledArgs.get(args);
  if (!found) {
    const checks = args.map((arg): ArgCheck => {
      const nonNull = isNonNullType(arg.type);
      const inner = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
      const named = getNamedType(arg.type);
      const list = isListType(inner);
      const query = list
        ? isScalarType(named) && named.name === 'String'
          ? 'comma-list'
          : 'list'
        : isScalarType(named) && (named.name === 'Int' || named.name === 'Boolean')
          ? named.name
          : 'text';
      const leaf = isLeafType(inner) ? inner : undefined;
      return { name: arg.name, type: arg.type, nonNull, list, leaf, check: leaf ? undefined : checker(arg.type), query };
    });
    found = { byName: new Map(checks.map((check) => [check.name, check])), checks };
    compiledArgs.set(args, found);
  }
  return found;
}

/** What a compiled check returns where coerceInputValue would report an error. */
const INVALID: unique symbol = Symbol('invalid');
type Check = (value: unknown) => unknown;

const checkers = new WeakMap<GraphQLInputType, Check>();

/**
 * coerceInputValue for one input type, worked out once per type: the same walk and the same
 * coerced value for a valid value, and INVALID (no message) wherever coerceInputValue would call
 * its onError, so the caller re-runs coerceInputValue for its exact error. It may also give up
 * (INVALID) on a value coerceInputValue accepts; it never accepts what coerceInputValue refuses.
 * A copy of graphql-js's walk: graphql 16.15.0 is pinned exactly in package.json, and
 * test/http/rest-input.test.ts, which compares every answer with coerceInputValue's, fails when it changes.
 */
function checker(type: GraphQLInputType): Check {
  const found = checkers.get(type);
  if (found) return found;
  // A type is compiled before its parts are, through this indirection, so a recursive input type ends.
  checkers.set(type, (value) => compiledCheck(value));
  const compiledCheck = compileChecker(type);
  checkers.set(type, compiledCheck);
  return compiledCheck;
}

function compileChecker(type: GraphQLInputType): Check {
  if (isNonNullType(type)) {
    const inner = checker(type.ofType);
    return (value) => (value == null ? INVALID : inner(value));
  }
  if (isListType(type)) {
    const item = checker(type.ofType);
    return (value) => {
      if (value == null) return null;
      if (Array.isArray(value)) {
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          const coerced = item(value[i]);
          if (coerced === INVALID) return INVALID;
          out[i] = coerced;
        }
        return out;
      }
      // Some other iterable: coerceInputValue's Array.from; not worth a fast path.
      if (typeof value === 'object' && typeof (value as Record<symbol, unknown>)[Symbol.iterator] === 'function') return INVALID;
      const coerced = item(value);
      return coerced === INVALID ? INVALID : [coerced];
    };
  }
  if (isInputObjectType(type)) {
    if (type.isOneOf) return () => INVALID;
    const fieldDefs = type.getFields();
    const names = new Set(Object.keys(fieldDefs));
    const fields = Object.values(fieldDefs).map((field) => ({
      name: field.name,
      defaultValue: field.defaultValue,
      required: isNonNullType(field.type),
      check: checker(field.type),
    }));
    return (value) => {
      if (value == null) return null;
      if (typeof value !== 'object' || Array.isArray(value)) return INVALID;
      const input = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of fields) {
        const fieldValue = input[field.name];
        if (fieldValue === undefined) {
          if (field.defaultValue !== undefined) out[field.name] = field.defaultValue;
          else if (field.required) return INVALID;
          continue;
        }
        const coerced = field.check(fieldValue);
        if (coerced === INVALID) return INVALID;
        out[field.name] = coerced;
      }
      for (const key of Object.keys(input)) if (!names.has(key)) return INVALID;
      return out;
    };
  }
  if (isLeafType(type)) {
    return (value) => {
      if (value == null) return null;
      try {
        const parsed = leafValue(type, value);
        return parsed === undefined ? INVALID : parsed;
      } catch {
        return INVALID;
      }
    };
  }
  return () => INVALID;
}

/** parseValue of a scalar or enum, as coerceInputValue calls it. */
function leafValue(type: GraphQLScalarType | GraphQLEnumType, value: unknown): unknown {
  return isEnumType(type) ? type.parseValue(value, undefined) : type.parseValue(value);
}

/**
 * coerceInputValue's leaf case, for an argument that is a scalar or enum (the value is neither null
 * nor undefined here): the same parseValue call and the same error messages, without its walk.
 */
function parseLeaf(type: GraphQLScalarType | GraphQLEnumType, value: unknown, param: string): unknown {
  let parsed: unknown;
  let message: string | undefined;
  try {
    parsed = leafValue(type, value);
  } catch (error) {
    message = error instanceof GraphQLError ? error.message : `Expected type "${type.name}". ` + (error as Error).message;
  }
  if (message === undefined && parsed === undefined) message = `Expected type "${type.name}".`;
  if (message !== undefined) {
    const values = isEnumType(type) ? type.getValues().map((v) => v.name) : undefined;
    throw new ApiError('INVALID_REQUEST', describeCoercionError(param, message, values), { param });
  }
  return parsed;
}

/** The longest comma list a query string may give a list argument (`symbols`: 100 codes and their commas). */
const MAX_COMMA_LIST_LENGTH = 400;

/** A query string holds text; numbers, booleans and comma lists are parsed here so the GraphQL type check can run. */
function fromQueryString(text: string, arg: ArgCheck, name: string): unknown {
  // SOFA reads `name=` as no value at all: refuse it rather than answer for an input not sent.
  if (text === '') throw new ApiError('INVALID_REQUEST', `'${name}' is empty: give it a value or leave it out.`, { param: name });
  if (arg.query === 'comma-list') {
    // The REST form of a list of strings (`symbols=USD,JPY`): items trimmed, the list bounded as a text.
    if (text.length > MAX_COMMA_LIST_LENGTH)
      throw new ApiError('INVALID_REQUEST', `'${name}' must be a comma-separated list of at most ${MAX_COMMA_LIST_LENGTH} characters.`, {
        param: name,
      });
    return text.split(',').map((item) => item.trim());
  }
  if (arg.query === 'list') {
    throw new ApiError('INVALID_REQUEST', `'${name}' cannot be sent in the query string.`, { param: name });
  }
  if (arg.query === 'Int') {
    if (!/^-?\d{1,10}$/.test(text)) throw new ApiError('INVALID_REQUEST', `'${name}' must be a whole number.`, { param: name });
    return Number(text);
  }
  if (arg.query === 'Boolean') {
    if (text !== 'true' && text !== 'false') throw new ApiError('INVALID_REQUEST', `'${name}' must be true or false.`, { param: name });
    return text === 'true';
  }
  return text;
}

const UNKNOWN_FIELD = /^Field "(\w+)" is not defined by type "\w+"\.(?: Did you mean (.*)\?)?$/;
const UNKNOWN_FIELD_MESSAGE = /is invalid: unknown field '/;

/** The values of the enum at `path` inside `type` (list indexes, input object fields), if an enum is there. */
export function enumValuesAt(type: GraphQLInputType, path: readonly (string | number)[]): string[] | undefined {
  let at: GraphQLInputType | undefined = type;
  for (const key of path) {
    if (at !== undefined && isNonNullType(at)) at = at.ofType;
    if (typeof key === 'number') at = at !== undefined && isListType(at) ? at.ofType : undefined;
    else at = at !== undefined && isInputObjectType(at) ? at.getFields()[key]?.type : undefined;
  }
  if (at !== undefined && isNonNullType(at)) at = at.ofType;
  return at !== undefined && isEnumType(at) ? at.getValues().map((v) => v.name) : undefined;
}

const UNKNOWN_ENUM_VALUE = /^Value (".*") does not exist in "\w+" enum\.(?: Did you mean the enum value "(\w+)"\?)?/;

/**
 * A GraphQL coercion message as a REST error message for `param` (exported for the equivalence
 * test); a value that is not one of an enum's (`enumValues`) lists them all, the nearest first said.
 */
export function describeCoercionError(param: string, message: string, enumValues?: readonly string[]): string {
  const notInEnum = enumValues === undefined ? null : UNKNOWN_ENUM_VALUE.exec(message);
  if (notInEnum) {
    const near = notInEnum[2] === undefined ? '' : ` (did you mean ${notInEnum[2]}?)`;
    return `'${param}' is invalid: ${notInEnum[1]} is not one of ${enumValues!.join(', ')}${near}.`;
  }
  const unknown = UNKNOWN_FIELD.exec(message);
  if (unknown) {
    const near = [...(unknown[2] ?? '').matchAll(/"(\w+)"/g)].map((m) => m[1]!);
    return `'${param}' is invalid: unknown field '${unknown[1]}'${didYouMean(near)}.`;
  }
  const reason = message
    .replace(/^Expected type "(\w+)"\.?\s*/, (_, type: string) => `expected ${type}. `)
    .replace(/^(Int|String|Boolean|Float) cannot represent (a )?non[- ]\w+ value: .*$/, (_, type: string) => `must be ${article(type)}.`)
    .replace(/Did you mean .*$/, '')
    .trim();
  return `'${param}' is invalid: ${reason}`.replace(/\s+$/, '');
}

function article(type: string): string {
  return { Int: 'a whole number', String: 'a string', Boolean: 'true or false', Float: 'a number' }[type] ?? type;
}
