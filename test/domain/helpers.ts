/**
 * Shared by the domain tests: an assertion for ApiError, and decimal.js as an independent oracle
 * for the contract's number rules (the code under test never uses decimal.js).
 */
import Decimal from 'decimal.js';
import { expect } from 'vitest';
import type { RoundingMode } from '../../src/domain/decimal';
import { ApiError, type ErrorCode } from '../../src/domain/errors';

/** Runs `fn`, expects an ApiError with this code and param, and returns it for further checks. */
export function expectApiError(fn: () => unknown, code: ErrorCode, param?: string): ApiError {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, 'expected an ApiError').toBeInstanceOf(ApiError);
  const error = thrown as ApiError;
  expect({ code: error.code, param: error.param }).toEqual({ code, param });
  expect(error.message).toMatch(/^[^\n]+\.$/); // one sentence, not a stack trace
  return error;
}

/** A private decimal.js type: the global one defaults to 20 significant digits. */
export const Oracle = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN });
export type OracleDecimal = InstanceType<typeof Oracle>;

const ORACLE_ROUNDING: Record<RoundingMode, Decimal.Rounding> = {
  HALF_UP: Decimal.ROUND_HALF_UP,
  HALF_EVEN: Decimal.ROUND_HALF_EVEN,
  DOWN: Decimal.ROUND_DOWN,
  UP: Decimal.ROUND_UP,
  FLOOR: Decimal.ROUND_FLOOR,
  CEILING: Decimal.ROUND_CEIL,
};

/** The contract's printing rule, computed by decimal.js from a (near-)exact value. */
export function oracleFormat(x: OracleDecimal, decimals?: number, rounding: RoundingMode = 'HALF_UP'): string {
  const text =
    decimals === undefined ? x.toSignificantDigits(40, Decimal.ROUND_HALF_EVEN).toFixed() : x.toFixed(decimals, ORACLE_ROUNDING[rounding]);
  return /^-0(\.0+)?$/.test(text) ? text.slice(1) : text; // decimal.js prints "-0.00"; the contract never does
}

/** The output shape of every number the API prints. */
export const OUTPUT_PATTERN = /^-?\d+(\.\d+)?$/;
