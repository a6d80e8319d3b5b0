import { looksLikeCurrencyCode } from './currency/codes';
import { ApiError } from './errors';
import type { RoundingMode } from './decimal';
import { findUnit } from './units/lookup';

/** One entry of POST /v1/batch, as received (types already checked, values not). */
export interface BatchItem {
  value: string;
  from: string;
  to: string;
  decimals?: number | null | undefined;
  rounding?: RoundingMode | null | undefined;
  /** A currency item only: round to the ISO 4217 minor units of `to`. */
  minorUnits?: boolean | null | undefined;
  date?: string | null | undefined;
  /** The source whose figures price a currency item (absent: the contract's order). */
  source?: string | null | undefined;
}

export const MAX_BATCH_ITEMS = 1000;

/** What an item is read as, whether it converted or failed: a unit conversion or a currency conversion. */
export const BATCH_ITEM_KINDS = ['unit', 'currency'] as const;
export type BatchItemKind = (typeof BATCH_ITEM_KINDS)[number];

/**
 * An item is a currency conversion when both ends are written as currency codes and neither is a
 * unit (some units have three-letter names, such as `bar`); otherwise it is a unit conversion,
 * which reports a currency at either end as INCOMPATIBLE_UNITS.
 */
export function classifyItem(item: Pick<BatchItem, 'from' | 'to'>): BatchItemKind {
  const isCurrency = (token: string) => looksLikeCurrencyCode(token) && findUnit(token) === undefined;
  return isCurrency(item.from) && isCurrency(item.to) ? 'currency' : 'unit';
}

/** `minorUnits` rounds a currency amount: a unit item asking for it fails, naming it. */
export function refuseMinorUnits(item: Pick<BatchItem, 'minorUnits'>): void {
  if (item.minorUnits === true) {
    throw new ApiError('INVALID_REQUEST', 'minorUnits applies to currency conversions only; round a unit conversion with decimals.', {
      param: 'minorUnits',
    });
  }
}
