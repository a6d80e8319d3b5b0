import { classifyItem, refuseMinorUnits, type BatchItem } from '../domain/batch';
import { convertUnitsOrExplain } from '../domain/conversion';
import type { CurrencyConversion } from '../domain/currency/convert';
import { parseDecimals, parseRounding } from '../domain/decimal';
import { ApiError, INTERNAL_MESSAGE } from '../domain/errors';
import { quotaExceeded, type QuotaState } from '../domain/quota';
import type { Principal } from './auth';
import type { Currency, PublicationLoader } from './currency';
import { convertExpression, isPlainRequest, type ExpressionConversionAnswer } from './expressions';
import type { Charge, QuotaMeter } from './quota';
import type { RatesReader } from './rates';

/**
 * A currency conversion's inputs are a batch item's, and so are a unit conversion's: `from` and `to`
 * are units or unit expressions, and `date` picks the rates of the currencies an expression names.
 */
export type CurrencyArgs = BatchItem;
export type ConversionArgs = BatchItem;

/** Who asks, and the per-request publication loader (one cache read for a whole batch). */
export interface Caller {
  principal: Principal;
  requestId: string;
  publications: PublicationLoader;
  /**
   * How many conversions this field may compute, planned before execution from the remaining quota
   * (RequestContext.planConversions); undefined when nothing was planned (the charge alone decides).
   */
  allowance: number | undefined;
  /** Receives each charge: the conversions it counted and the quota state after it (X-Quota-* headers, GraphQL's cost extensions). */
  reportCharge(granted: number, state: QuotaState): void;
  /**
   * The keys revision the principal was found active in, not confirmed since (RequestContext): the
   * charge checks it in its own statement. Undefined when the key was checked in full.
   */
  keysRevision?: number | undefined;
  /** The key checked again in full after its charge found the keys changed; UNAUTHORIZED when revoked. */
  recheckKey?(): Promise<Principal>;
  /** The charge found `revision` unchanged: the key stands. */
  keyConfirmed?(revision: number): void;
}

/** A failed item keeps its ApiError (and the request's id): the edge renders it as the contract's error object. */
export type BatchEntry = { ok: true; data: ExpressionConversionAnswer | CurrencyConversion } | { ok: false; error: ApiError; requestId: string };

export interface BatchOutcome {
  results: BatchEntry[];
  succeeded: number;
  failed: number;
}

export interface Conversions {
  /** A unit conversion: catalogue units as today, or unit expressions (currencies included). */
  units(args: ConversionArgs, caller: Caller): Promise<ExpressionConversionAnswer>;
  currency(args: CurrencyArgs, caller: Caller): Promise<CurrencyConversion>;
  batch(items: readonly BatchItem[], caller: Caller): Promise<BatchOutcome>;
}

export interface ConversionDeps {
  currency: Currency;
  /** The rates a unit expression with currencies reads. */
  rates: RatesReader;
  quota: QuotaMeter;
  clock: () => Date;
  /** Logs an unexpected error of one batch item (the item answers INTERNAL, the batch goes on). */
  onUnexpected: (error: unknown, requestId: string) => void;
}

/** The conversion use cases; GraphQL resolvers (and so REST) call only these. */
export function createConversions({ currency, rates, quota, clock, onUnexpected }: ConversionDeps): Conversions {
  const units = (args: ConversionArgs, caller: Caller): Promise<ExpressionConversionAnswer> =>
    convertExpression(args, { plan: caller.principal.account.plan, rates, clock, publications: caller.publications, explainer: currency.explainer });

  const currencyConversion = (args: CurrencyArgs, caller: Caller): Promise<CurrencyConversion> =>
    currency.convert(args, caller.principal.account.plan, caller.publications);

  /**
   * Quota is charged only once the conversion has succeeded: a failure never costs anything. A field
   * planned past the remaining quota is refused before anything is computed.
   */
  const charged = async <T>(convert: () => Promise<T>, caller: Caller): Promise<T> => {
    if (caller.allowance === 0) throw quota.refusal(caller.principal.account);
    let result = await convert();
    // The state the charge read is reported on a refusal too: the headers need no second read.
    let charge = await quota.chargeUpTo(caller.principal.account, 1, caller.keysRevision);
    if (charge.stale) {
      charge = await chargeChecked(caller, 1, async () => {
        result = await convert();
        return 1;
      });
    } else if (caller.keysRevision !== undefined) caller.keyConfirmed?.(caller.keysRevision);
    const { granted, state } = charge;
    caller.reportCharge(granted, state);
    if (granted === 0) throw quotaExceeded(clock(), state.limit);
    return result;
  };

  /**
   * After a charge that found the keys changed since the caller's key was taken unconfirmed (it
   * charged nothing): the key is checked again in full (revoked: the request fails UNAUTHORIZED,
   * uncharged); still active under another account or plan, the work is done again under it
   * (`redo`, answering what it now wants charged); then `wanted` is charged again.
   */
  const chargeChecked = async (caller: Caller, wanted: number, redo: () => Promise<number>): Promise<Charge> => {
    for (;;) {
      const before = caller.principal.account;
      caller.principal = await caller.recheckKey!();
      if (caller.principal.account.id !== before.id || caller.principal.account.plan !== before.plan) wanted = await redo();
      if (wanted === 0) return { granted: 0, state: await quota.state(caller.principal.account) };
      // Checked in full now: this charge checks no revision, so it cannot be stale.
      const charge = await quota.chargeUpTo(caller.principal.account, wanted);
      if (!charge.stale) return charge;
    }
  };

  /**
   * Batch items arrive with types checked but values not: every value rule applies per item. A
   * plain unit item is computed at once (no promise per item); a currency item, or a unit item with
   * an expression (it may name currencies, and carry a date), answers a promise, started in this
   * tick so that the DataLoader reads the publications of all of them at once.
   */
  const attempt = (entry: BatchItem, caller: Caller): BatchEntry | Promise<BatchEntry> => {
    try {
      const kind = classifyItem(entry);
      if (kind === 'unit') refuseMinorUnits(entry);
      if (kind === 'currency' || !isPlainRequest(entry)) {
        const converted: Promise<ExpressionConversionAnswer | CurrencyConversion> = kind === 'currency' ? currencyConversion(entry, caller) : units(entry, caller);
        return converted.then(
          (data): BatchEntry => ({ ok: true, data }),
          (error: unknown): BatchEntry => ({ ok: false, error: errorShape(error, caller.requestId, onUnexpected), requestId: caller.requestId }),
        );
      }
      // decimals and rounding are checked before the value here (the item's order), then again, passing, inside.
      const decimals = parseDecimals(entry.decimals);
      const rounding = parseRounding(entry.rounding);
      return { ok: true, data: convertUnitsOrExplain({ value: entry.value, from: entry.from, to: entry.to, decimals, rounding }) };
    } catch (error) {
      return { ok: false, error: errorShape(error, caller.requestId, onUnexpected), requestId: caller.requestId };
    }
  };

  /**
   * One conversion of quota per successful item, in order; items past the quota fail QUOTA_EXCEEDED.
   * The results are the batch's; `redo` converts it again (the key's plan changed under it).
   */
  const chargeBatch = async (results: BatchEntry[], caller: Caller, redo: () => Promise<BatchEntry[]>): Promise<BatchEntry[]> => {
    const successes = results.filter((r) => r.ok).length;
    if (successes === 0) return results;
    let charge = await quota.chargeUpTo(caller.principal.account, successes, caller.keysRevision);
    if (charge.stale) {
      charge = await chargeChecked(caller, successes, async () => {
        results = await redo();
        return results.filter((r) => r.ok).length;
      });
    } else if (caller.keysRevision !== undefined) caller.keyConfirmed?.(caller.keysRevision);
    const { granted, state } = charge;
    caller.reportCharge(granted, state);
    let seen = 0;
    results.forEach((entry, i) => {
      if (entry.ok && ++seen > granted) {
        results[i] = { ok: false, error: quotaExceeded(clock(), state.limit), requestId: caller.requestId };
      }
    });
    return results;
  };

  /**
   * Converts items in order until `allowance` of them have succeeded; the items after that fail with
   * QUOTA_EXCEEDED without being computed. A failed item uses none of the allowance, so each round
   * converts as many of the next items as could still succeed, all started in one tick so that the
   * DataLoader reads their publications at once: one round when the allowance covers the batch.
   */
  const convertWithin = async (items: readonly BatchItem[], caller: Caller): Promise<BatchEntry[]> => {
    const allowance = caller.allowance ?? items.length;
    const results: BatchEntry[] = [];
    let succeeded = 0;
    while (results.length < items.length && succeeded < allowance) {
      const end = Math.min(items.length, results.length + allowance - succeeded);
      const round: (BatchEntry | Promise<BatchEntry>)[] = [];
      let pending = false;
      for (let i = results.length; i < end; i += 1) {
        const entry = attempt(items[i]!, caller);
        if (entry instanceof Promise) pending = true;
        round.push(entry);
      }
      for (const entry of pending ? await Promise.all(round) : (round as BatchEntry[])) {
        if (entry.ok) succeeded += 1;
        results.push(entry);
      }
    }
    if (results.length < items.length) {
      const refused: BatchEntry = { ok: false, error: quota.refusal(caller.principal.account), requestId: caller.requestId };
      while (results.length < items.length) results.push(refused);
    }
    return results;
  };

  return {
    units: (args, caller) => charged(() => units(args, caller), caller),
    currency: (args, caller) => charged(() => currencyConversion(args, caller), caller),
    async batch(items, caller) {
      const results = await chargeBatch(await convertWithin(items, caller), caller, () => convertWithin(items, caller));
      const succeeded = results.filter((r) => r.ok).length;
      return { results, succeeded, failed: results.length - succeeded };
    },
  };
}

function errorShape(error: unknown, requestId: string, onUnexpected: ConversionDeps['onUnexpected']): ApiError {
  if (error instanceof ApiError) return error;
  onUnexpected(error, requestId);
  return new ApiError('INTERNAL', INTERNAL_MESSAGE);
}
