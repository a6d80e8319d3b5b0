import { classifyItem, type BatchItem } from '../domain/batch';
import { knownCurrency } from '../domain/currency/codes';
import { convertUnitsOrExplain } from '../domain/conversion';
import { parseDecimals, parseRounding, type RoundingMode } from '../domain/decimal';
import { ApiError, INTERNAL_MESSAGE, errorBody, type ErrorBody } from '../domain/errors';
import type { UnitConversion } from '../domain/units/convert';

export interface ConversionArgs {
  value: string;
  from: string;
  to: string;
  decimals?: number | null | undefined;
  rounding?: RoundingMode | null | undefined;
}

export type BatchEntry = { ok: true; data: UnitConversion } | { ok: false; error: ErrorBody };

export interface BatchOutcome {
  results: BatchEntry[];
  succeeded: number;
  failed: number;
}

export interface Conversions {
  units(args: ConversionArgs): UnitConversion;
  batch(items: readonly BatchItem[], requestId: string): Promise<BatchOutcome>;
}

/** Seconds a client should wait before asking for currency data again while none is loaded. */
export const RATES_RETRY_AFTER_SECONDS = 60;

/** The application's conversion use cases; the GraphQL resolvers (and so REST) call only these. */
export function createConversions(onUnexpected: (error: unknown, requestId: string) => void): Conversions {
  const units = (args: ConversionArgs): UnitConversion =>
    convertUnitsOrExplain({
      value: args.value,
      from: args.from,
      to: args.to,
      ...optionalRounding(args),
    });

  const convertItem = async (item: BatchItem): Promise<UnitConversion> => {
    if (classifyItem(item) === 'unit') {
      return units({ ...item, decimals: parseDecimals(item.decimals), rounding: parseRounding(item.rounding) });
    }
    for (const param of ['from', 'to'] as const) {
      if (knownCurrency(item[param]) === undefined) {
        throw new ApiError('UNKNOWN_CURRENCY', `Currency '${item[param]}' is not supported.`, { param });
      }
    }
    throw new ApiError('SERVICE_UNAVAILABLE', 'Currency rates are not available yet; retry later.', {
      headers: { 'Retry-After': String(RATES_RETRY_AFTER_SECONDS) },
    });
  };

  return {
    units,
    async batch(items, requestId) {
      const results: BatchEntry[] = [];
      for (const item of items) {
        try {
          results.push({ ok: true, data: await convertItem(item) });
        } catch (error) {
          results.push({ ok: false, error: errorShape(error, requestId, onUnexpected) });
        }
      }
      const succeeded = results.filter((r) => r.ok).length;
      return { results, succeeded, failed: results.length - succeeded };
    },
  };
}

function optionalRounding(args: ConversionArgs): { decimals?: number; rounding?: RoundingMode } {
  return {
    ...(args.decimals === null || args.decimals === undefined ? {} : { decimals: args.decimals }),
    ...(args.rounding === null || args.rounding === undefined ? {} : { rounding: args.rounding }),
  };
}

function errorShape(error: unknown, requestId: string, onUnexpected: (e: unknown, id: string) => void): ErrorBody {
  if (error instanceof ApiError) return errorBody(error, requestId);
  onUnexpected(error, requestId);
  return { code: 'INTERNAL', message: INTERNAL_MESSAGE, status: 500, requestId };
}
