import { GraphQLError, Kind } from 'graphql';
import { decimalTextRule, isDecimalText } from '../domain/decimal';
import { isCalendarDate, missingDayReason } from '../domain/dates';
import { builder } from './builder';

/** Strict in every direction: only strings of the contract's shape, never numbers (precision would be lost). */
function decimalString(value: unknown): string {
  if (typeof value !== 'string') {
    throw new GraphQLError(`A Decimal must be a string such as "12.5"${typeof value === 'number' ? ', not a number' : ''}.`);
  }
  if (!isDecimalText(value)) {
    throw new GraphQLError(decimalTextRule(value, 'A Decimal is'));
  }
  return value;
}

/** Results may be longer than inputs (40 significant digits of a tiny or huge value) but keep the shape. */
const OUTPUT_PATTERN = /^-?\d+(\.\d+)?$/;

function decimalOutput(value: unknown): string {
  if (typeof value !== 'string' || !OUTPUT_PATTERN.test(value)) throw new TypeError(`Not a decimal string: ${String(value).slice(0, 50)}`);
  return value;
}

builder.scalarType('Decimal', {
  description:
    'An exact decimal number written as a string, never in exponent notation. As input: optional "-", 1 to 40 digits, optionally "." and 1 to 40 digits. TypeScript: `string` (never `number`, which would lose digits); do arithmetic with a decimal library (decimal.js, big.js).',
  serialize: decimalOutput,
  parseValue: decimalString,
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('A Decimal must be a string literal such as "12.5".');
    return decimalString(node.value);
  },
});

function dateString(value: unknown): string {
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    const reason = typeof value === 'string' ? missingDayReason(value) : undefined;
    throw new GraphQLError(reason === undefined ? 'A Date is a calendar date written YYYY-MM-DD.' : `${value} does not exist: ${reason}.`);
  }
  return value;
}

builder.scalarType('Date', {
  description:
    'A calendar date, YYYY-MM-DD: RFC 3339 `full-date`, with no time and no zone. TypeScript: `string` (not a JavaScript `Date`, which is an instant).',
  specifiedByURL: 'https://www.rfc-editor.org/rfc/rfc3339#section-5.6',
  serialize: dateString,
  parseValue: dateString,
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING) throw new GraphQLError('A Date must be a string literal such as "2024-03-28".');
    return dateString(node.value);
  },
});

/** OpenAPI schemas for the custom scalars, handed to SOFA so its document has no dangling $refs. */
export const SCALAR_JSON_SCHEMAS = {
  Decimal: {
    type: 'string',
    pattern: OUTPUT_PATTERN.source,
    description: 'A decimal string, never exponent notation. Inputs: optional "-", 1 to 40 digits, optionally "." and 1 to 40 digits.',
    example: '12.5',
  },
  Date: { type: 'string', format: 'date', example: '2024-03-28' },
  RateMap: {
    type: 'object',
    description:
      'Upper-case currency code → units of that currency per one unit of the base, a decimal string: exactly as the ECB published it for base EUR without amount or decimals, else the exact quotient (times the amount, which may be negative).',
    propertyNames: { type: 'string', pattern: '^[A-Z]{3}$' },
    additionalProperties: { type: 'string', pattern: '^-?\\d+(\\.\\d+)?$' },
    example: { USD: '1.0811', JPY: '163.45' },
  },
} as const;
