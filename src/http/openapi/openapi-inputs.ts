import { MAX_BATCH_ITEMS } from '../../domain/batch';
import { CODE_SHAPE } from '../../domain/currency/codes';
import { SERIES_GROUPS } from '../../domain/currency/periods';
import { MAX_SYMBOLS_LENGTH } from '../../domain/currency/request';
import { DECIMAL_PATTERN, MAX_DECIMALS } from '../../domain/decimal';
import { MAX_EXPRESSION_LENGTH } from '../../domain/units/expression';
import { MAX_LINK_SECONDS, MIN_LINK_SECONDS } from '../../domain/signed-links';

type Json = Record<string, unknown>;

/** JSON Schema counts characters (code points), as parseExpression does. */
const UNIT_TEXT_BOUNDS: Json = { type: 'string', minLength: 1, maxLength: MAX_EXPRESSION_LENGTH };

const BOUNDS_VALUE: Json = {
  type: 'string',
  pattern: DECIMAL_PATTERN.source,
  description:
    'A decimal string: optional "-", 1 to 40 digits, optionally "." and 1 to 40 digits. No exponent, "+", spaces or separators; a JSON number is refused (send a string).',
};

/**
 * The server's bounds on each input, by the name every route and batch item gives it: what SOFA's
 * document leaves out (it knows the GraphQL types, not the checks behind them). A client or proxy
 * that validates against the document then refuses what the server would refuse for these bounds.
 */
const BOUNDS: Readonly<Record<string, Json>> = {
  value: BOUNDS_VALUE,
  decimals: { type: 'integer', minimum: 0, maximum: MAX_DECIMALS },
  // A unit, a unit expression or (in a batch item) a currency code; a currency route's are codes (FIELD_BOUNDS).
  from: UNIT_TEXT_BOUNDS,
  to: UNIT_TEXT_BOUNDS,
  date: { type: 'string', format: 'date' },
  items: { minItems: 1, maxItems: MAX_BATCH_ITEMS },
};

const CODE = CODE_SHAPE.source.replace(/^\^|\$$/g, '');
/** A comma list of currency codes, the REST form of `symbols` (a list in GraphQL). */
const SYMBOLS_LIST: Json = { type: 'string', pattern: `^\\s*${CODE}\\s*(,\\s*${CODE}\\s*)*$`, maxLength: MAX_SYMBOLS_LENGTH };

/** Bounds of one field's inputs only: a currency route's `from` is a code, a unit route's is any unit text. */
const FIELD_BOUNDS: Readonly<Record<string, Readonly<Record<string, Json>>>> = {
  convertCurrency: { from: { type: 'string', pattern: CODE_SHAPE.source }, to: { type: 'string', pattern: CODE_SHAPE.source } },
  rates: { symbols: SYMBOLS_LIST, base: { type: 'string', pattern: CODE_SHAPE.source }, amount: BOUNDS_VALUE },
  currency: { code: { type: 'string', pattern: CODE_SHAPE.source } },
  rateSeries: {
    start: { type: 'string', format: 'date' },
    end: { type: 'string', format: 'date' },
    base: { type: 'string', pattern: CODE_SHAPE.source },
    symbols: SYMBOLS_LIST,
    group: { type: 'string', enum: [...SERIES_GROUPS] },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,120}$' },
  },
  rateSeriesLink: {
    start: { type: 'string', format: 'date' },
    end: { type: 'string', format: 'date' },
    base: { type: 'string', pattern: CODE_SHAPE.source },
    group: { type: 'string', enum: [...SERIES_GROUPS] },
    expiresIn: { type: 'integer', minimum: MIN_LINK_SECONDS, maximum: MAX_LINK_SECONDS },
  },
};

/**
 * One request each field's routes answer with 200 (a key of the Business plan, the ECB history):
 * the example of every parameter and body member, and the body's example as a whole, so that
 * documentation shows a request that works and tools that send the examples (a Postman collection)
 * get one. `cursor` and a signed link's `keyId`, `expires`, `signature` have none: each comes from
 * an answer (nextCursor, POST /v1/currency/rates/series/links), never from the document.
 */
const EXAMPLES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  categories: { lang: 'en' },
  category: { category: 'length', lang: 'en' },
  units: { category: 'length', lang: 'en' },
  unit: { unit: 'ft', lang: 'en' },
  convert: {
    value: '12.5',
    from: 'ft',
    to: 'm',
    decimals: 4,
    rounding: 'HALF_UP',
    minorUnits: false,
    date: '2024-03-28',
    source: 'ecb',
    lang: 'en',
  },
  convertPost: { value: '12.5', from: 'ft', to: 'm', decimals: 4, rounding: 'HALF_UP' },
  batch: {
    items: [
      { value: '12.5', from: 'ft', to: 'm' },
      { value: '100', from: 'USD', to: 'EUR', date: '2024-03-28' },
    ],
  },
  convertCurrency: { value: '100', from: 'USD', to: 'EUR', decimals: 2, rounding: 'HALF_UP', date: '2024-03-28', source: 'ecb' },
  rates: { date: '2024-03-28', symbols: 'USD,JPY', base: 'EUR', amount: '100', decimals: 4, rounding: 'HALF_UP', source: 'ecb' },
  rateSeries: {
    start: '2024-03-01',
    end: '2024-03-28',
    base: 'EUR',
    symbols: 'USD,JPY',
    group: 'week',
    decimals: 4,
    rounding: 'HALF_UP',
    source: 'ecb',
  },
  rateSeriesLink: {
    start: '2024-03-01',
    end: '2024-03-28',
    base: 'EUR',
    symbols: ['USD', 'JPY'],
    group: 'week',
    format: 'csv',
    expiresIn: 3600,
  },
  currencies: { name: 'euro', lang: 'en' },
  currency: { code: 'USD', lang: 'en' },
};

/** The example request of a field's routes (their body's, when they take one). */
export function exampleRequest(field: string): Readonly<Record<string, unknown>> | undefined {
  return EXAMPLES[field];
}

/** An input's schema with the server's bounds; a description the bounds do not give is kept. */
function bounded(name: string, schema: Json, field?: string): Json {
  const bounds = (field === undefined ? undefined : FIELD_BOUNDS[field]?.[name]) ?? BOUNDS[name];
  if (!bounds) return schema;
  // A list argument's REST form is a comma list: its bounds replace the array schema.
  if (schema['type'] === 'array' && bounds['type'] !== undefined && bounds['type'] !== 'array')
    return { ...bounds, ...(schema['description'] !== undefined ? { description: schema['description'] } : {}) };
  return {
    ...schema,
    ...bounds,
    ...(bounds['description'] === undefined && schema['description'] !== undefined ? { description: schema['description'] } : {}),
  };
}

/** Every property of an object schema bounded by its name; no other member is accepted. */
function boundedProperties(schema: Json, field?: string): Json {
  const properties = schema['properties'] as Record<string, Json> | undefined;
  if (!properties) return schema;
  const bound = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, bounded(name, property, field)]));
  return { ...schema, properties: bound, additionalProperties: false };
}

/**
 * A query or path parameter with its bounds. A query parameter is never empty (`?from=` is refused:
 * leave it out instead), and is sent once.
 */
export function boundedParameter(field: string, parameter: Json): Json {
  const name = parameter['name'] as string;
  const schema = withExample(bounded(name, parameter['schema'] as Json, field), EXAMPLES[field]?.[name]);
  const nonEmpty = schema['type'] === 'string' && schema['pattern'] === undefined && schema['format'] === undefined ? { minLength: 1 } : {};
  const example = EXAMPLES[field]?.[name];
  return { ...parameter, ...(example === undefined ? {} : { example }), schema: { ...schema, ...nonEmpty } };
}

/** A request body's schema with its bounds and the example of each member. */
export function boundedBody(field: string, schema: Json): Json {
  const body = boundedProperties(schema, field);
  const properties = body['properties'] as Record<string, Json> | undefined;
  if (!properties) return body;
  const examples = EXAMPLES[field] ?? {};
  return {
    ...body,
    properties: Object.fromEntries(Object.entries(properties).map(([name, member]) => [name, withExample(member, examples[name])])),
  };
}

/** The schema with this example (an array `symbols` sent as a list in a body keeps its list), the scalar's sample replaced. */
function withExample(schema: Json, example: unknown): Json {
  if (example === undefined) return schema;
  const { example: _sample, examples: _samples, ...rest } = schema;
  return { ...rest, examples: [example] };
}

/** The input-object components (the batch item) with their bounds; every other component as it is. */
export function boundedInputComponents(schemas: Record<string, Json>): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, name.endsWith('Input') ? boundedProperties(schema) : schema]),
  );
}
