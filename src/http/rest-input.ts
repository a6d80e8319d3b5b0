import {
  coerceInputValue,
  getNamedType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLInputType,
} from 'graphql';
import { ApiError } from '../domain/errors';
import { quoteInput, shownInput } from '../domain/quote-input';
import type { RestRoute } from './routes';

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
  search: URLSearchParams,
  body: unknown,
): Record<string, unknown> {
  const fromPath = new Set(Object.keys(pathParams));
  const byName = new Map(args.map((arg) => [arg.name, arg]));
  const inputs: Record<string, unknown> = { ...pathParams };

  if (route.method === 'POST') {
    const first = search.keys().next();
    if (!first.done) {
      throw new ApiError('INVALID_REQUEST', `Query parameters are not accepted on POST ${route.path}; send every field in the JSON body.`, { param: shownInput(first.value) });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object.');
    }
    for (const [name, value] of Object.entries(body)) {
      if (!byName.has(name) || fromPath.has(name)) throw new ApiError('INVALID_REQUEST', `Unknown field ${quoteInput(name)}.`, { param: shownInput(name) });
      inputs[name] = value;
    }
  } else {
    for (const name of new Set(search.keys())) {
      if (!byName.has(name) || fromPath.has(name)) throw new ApiError('INVALID_REQUEST', `Unknown query parameter ${quoteInput(name)}.`, { param: shownInput(name) });
      const values = search.getAll(name);
      if (values.length > 1) throw new ApiError('INVALID_REQUEST', `Query parameter '${name}' is given more than once.`, { param: name });
      inputs[name] = fromQueryString(values[0]!, byName.get(name)!.type, name);
    }
  }

  const coerced: Record<string, unknown> = {};
  for (const arg of args) {
    const value = inputs[arg.name];
    if (value === undefined || value === null) {
      if (isNonNullType(arg.type)) throw new ApiError('INVALID_REQUEST', `'${arg.name}' is required.`, { param: arg.name });
      if (value === null) coerced[arg.name] = null;
      continue;
    }
    // GraphQL would take a lone value as a list of one; a JSON body must send the array it documents.
    if (isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type) && !Array.isArray(value)) {
      throw new ApiError('INVALID_REQUEST', `'${arg.name}' must be an array.`, { param: arg.name });
    }
    coerced[arg.name] = coerceInputValue(value, arg.type, (path, _invalid, error) => {
      const param = path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${key}`), arg.name);
      throw new ApiError('INVALID_REQUEST', describeCoercionError(param, error.message), { param });
    });
  }
  return coerced;
}

/** A query string holds text; numbers and booleans are parsed here so the GraphQL type check can run. */
function fromQueryString(text: string, type: GraphQLInputType, name: string): unknown {
  // SOFA reads `name=` as no value at all: refuse it rather than answer for an input not sent.
  if (text === '') throw new ApiError('INVALID_REQUEST', `'${name}' is empty: give it a value or leave it out.`, { param: name });
  const named = getNamedType(type);
  if (isListType(isNonNullType(type) ? type.ofType : type)) {
    throw new ApiError('INVALID_REQUEST', `'${name}' cannot be sent in the query string.`, { param: name });
  }
  if (isScalarType(named) && named.name === 'Int') {
    if (!/^-?\d{1,10}$/.test(text)) throw new ApiError('INVALID_REQUEST', `'${name}' must be a whole number.`, { param: name });
    return Number(text);
  }
  if (isScalarType(named) && named.name === 'Boolean') {
    if (text !== 'true' && text !== 'false') throw new ApiError('INVALID_REQUEST', `'${name}' must be true or false.`, { param: name });
    return text === 'true';
  }
  return text;
}

function describeCoercionError(param: string, message: string): string {
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
