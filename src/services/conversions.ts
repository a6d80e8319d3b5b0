import { classifyItem, refuseMinorUnits, type BatchItem } from '../domain/batch';
import { convertBatch, type BatchDeps, type BatchOutcome } from './batch-conversions';
import { chargedConversion, type Caller } from './conversion-charges';
import type { CurrencyConverter, ExplainedConversion } from './currency/converter';
import { convertExpression, type ExpressionConversionAnswer } from './expressions';
import type { QuotaMeter } from './quota';
import type { RatesReader } from './currency/rates';

/**
 * A currency conversion's inputs are a batch item's, and so are a unit conversion's: `from` and `to`
 * are units or unit expressions, and `date` picks the rates of the currencies an expression names.
 */
export type CurrencyArgs = BatchItem;
export type ConversionArgs = BatchItem;

export interface Conversions {
  /**
   * `convert` (GET and POST /v1/convert, GraphQL `convert`): a currency pair as the currency
   * conversion answers it, in the unit conversion's shape; else catalogue units or unit expressions
   * (currencies included).
   */
  convert(args: ConversionArgs, caller: Caller): Promise<ExpressionConversionAnswer>;
  currency(args: CurrencyArgs, caller: Caller): Promise<ExplainedConversion>;
  batch(items: readonly BatchItem[], caller: Caller): Promise<BatchOutcome>;
}

export interface ConversionDeps {
  converter: CurrencyConverter;
  /** The rates a unit expression with currencies reads. */
  rates: RatesReader;
  quota: QuotaMeter;
  clock: () => Date;
  /** Logs an unexpected error of one batch item (the item answers INTERNAL, the batch goes on). */
  onUnexpected: (error: unknown, requestId: string) => void;
}

/**
 * The conversion use cases; GraphQL resolvers (and so REST) call only these. Each is a conversion
 * (units or currency, uncharged) followed by its charge (conversion-charges.ts); a batch converts
 * its items within the caller's allowance, then charges the successes (batch-conversions.ts).
 */
export function createConversions({ converter, rates, quota, clock, onUnexpected }: ConversionDeps): Conversions {
  const units = (args: ConversionArgs, caller: Caller): Promise<ExpressionConversionAnswer> =>
    convertExpression(args, {
      plan: caller.principal.account.plan,
      rates,
      clock,
      publications: caller.publications,
      explainer: converter.explainer,
      sources: converter.sources,
    });

  // One rule decides what a pair is, for `convert` and batch items alike (domain/batch.ts classifyItem).
  const anyPair = async (args: ConversionArgs, caller: Caller): Promise<ExpressionConversionAnswer> => {
    if (classifyItem(args) === 'currency') return converter.convertAsUnits(args, caller.principal.account.plan, caller.publications);
    refuseMinorUnits(args);
    return units(args, caller);
  };

  const currencyConversion = (args: CurrencyArgs, caller: Caller): Promise<ExplainedConversion> =>
    converter.convert(args, caller.principal.account.plan, caller.publications);

  const batchDeps: BatchDeps = { quota, clock, units, currency: currencyConversion, onUnexpected };
  return {
    convert: (args, caller) => chargedConversion({ quota, clock }, () => anyPair(args, caller), caller),
    currency: (args, caller) => chargedConversion({ quota, clock }, () => currencyConversion(args, caller), caller),
    batch: (items, caller) => convertBatch(batchDeps, items, caller),
  };
}
