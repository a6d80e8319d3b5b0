import { classifyItem, refuseMinorUnits, type BatchItem, type BatchItemKind } from '../domain/batch';
import { convertUnitsOrExplain } from '../domain/conversion';
import { parseDecimals, parseRounding } from '../domain/decimal';
import { ApiError, INTERNAL_MESSAGE } from '../domain/errors';
import { quotaExceeded } from '../domain/quota';
import { MAX_REQUEST_WORK, requestWork } from '../domain/work';
import { chargeChecked, type Caller, type ChargeDeps } from './conversion-charges';
import type { ExplainedConversion } from './currency/converter';
import { isPlainRequest, type ExpressionConversionAnswer } from './expressions';
import { yieldWhenSpent } from './work-slices';

/**
 * An item's outcome and what it was read as (`kind`, on both branches). A failed item keeps its
 * ApiError (and the request's id): the edge renders it as the contract's error object.
 */
export type BatchEntry =
  | { ok: true; kind: BatchItemKind; data: ExpressionConversionAnswer | ExplainedConversion }
  | { ok: false; kind: BatchItemKind; error: ApiError; requestId: string };

export interface BatchOutcome {
  results: BatchEntry[];
  succeeded: number;
  failed: number;
}

/** What converting a batch uses: the charge's deps, the two uncharged conversions of an item, and the log of unexpected errors. */
export interface BatchDeps extends ChargeDeps {
  units(args: BatchItem, caller: Caller): Promise<ExpressionConversionAnswer>;
  currency(args: BatchItem, caller: Caller): Promise<ExplainedConversion>;
  /** Logs an unexpected error of one batch item (the item answers INTERNAL, the batch goes on). */
  onUnexpected: (error: unknown, requestId: string) => void;
}

/** A batch: refused whole past the work budget, else converted within the caller's allowance, then charged. */
export async function convertBatch(deps: BatchDeps, items: readonly BatchItem[], caller: Caller): Promise<BatchOutcome> {
  requireWithinBudget(items);
  const results = await chargeBatch(deps, await convertWithin(deps, items, caller), caller, () => convertWithin(deps, items, caller));
  const succeeded = results.filter((r) => r.ok).length;
  return { results, succeeded, failed: results.length - succeeded };
}

/**
 * Batch items arrive with types checked but values not: every value rule applies per item. A
 * plain unit item is computed at once (no promise per item); a currency item, or a unit item with
 * an expression (it may name currencies, and carry a date), answers a promise, started in this
 * tick so that the DataLoader reads the publications of all of them at once.
 */
function attempt(deps: BatchDeps, entry: BatchItem, caller: Caller): BatchEntry | Promise<BatchEntry> {
  const kind = classifyItem(entry);
  try {
    if (kind === 'unit') refuseMinorUnits(entry);
    if (kind === 'currency' || !isPlainRequest(entry)) {
      const converted: Promise<ExpressionConversionAnswer | ExplainedConversion> =
        kind === 'currency' ? deps.currency(entry, caller) : deps.units(entry, caller);
      return converted.then(
        (data): BatchEntry => ({ ok: true, kind, data }),
        (error: unknown): BatchEntry => ({
          ok: false,
          kind,
          error: errorShape(error, caller.requestId, deps.onUnexpected),
          requestId: caller.requestId,
        }),
      );
    }
    // decimals and rounding are checked before the value here (the item's order), then again, passing, inside.
    const decimals = parseDecimals(entry.decimals);
    const rounding = parseRounding(entry.rounding);
    return { ok: true, kind, data: convertUnitsOrExplain({ value: entry.value, from: entry.from, to: entry.to, decimals, rounding }) };
  } catch (error) {
    return { ok: false, kind, error: errorShape(error, caller.requestId, deps.onUnexpected), requestId: caller.requestId };
  }
}

/**
 * One conversion of quota per successful item, in order; items past the quota fail QUOTA_EXCEEDED.
 * The results are the batch's; `redo` converts it again (the key's plan changed under it).
 */
async function chargeBatch(
  { quota, clock }: BatchDeps,
  results: BatchEntry[],
  caller: Caller,
  redo: () => Promise<BatchEntry[]>,
): Promise<BatchEntry[]> {
  const successes = results.filter((r) => r.ok).length;
  if (successes === 0) return results;
  let charge = await quota.chargeUpTo(caller.principal.account, successes, caller.keysRevision);
  if (charge.stale) {
    charge = await chargeChecked(quota, caller, successes, async () => {
      results = await redo();
      return results.filter((r) => r.ok).length;
    });
  } else if (caller.keysRevision !== undefined) caller.keyConfirmed?.(caller.keysRevision);
  const { granted, state } = charge;
  caller.reportCharge(granted, state);
  let seen = 0;
  results.forEach((entry, i) => {
    if (entry.ok && ++seen > granted) {
      results[i] = { ok: false, kind: entry.kind, error: quotaExceeded(clock(), state.limit), requestId: caller.requestId };
    }
  });
  return results;
}

/**
 * Converts items in order until `allowance` of them have succeeded; the items after that fail with
 * QUOTA_EXCEEDED without being computed. A failed item uses none of the allowance, so each round
 * converts as many of the next items as could still succeed, all started in one tick so that the
 * DataLoader reads their publications at once: one round when the allowance covers the batch.
 * The items of a round are computed in slices of the event loop (work-slices), waiting for a
 * later turn between slices, so that a batch never holds the loop for more than about one item;
 * the round holds its reads meanwhile, so they still go out as one.
 */
async function convertWithin(deps: BatchDeps, items: readonly BatchItem[], caller: Caller): Promise<BatchEntry[]> {
  const allowance = caller.allowance ?? items.length;
  const results: BatchEntry[] = [];
  let succeeded = 0;
  while (results.length < items.length && succeeded < allowance) {
    const end = Math.min(items.length, results.length + allowance - succeeded);
    const round: (BatchEntry | Promise<BatchEntry>)[] = [];
    let pending = false;
    // The round's reads wait until every item is started: one cache read, however many slices.
    const release = caller.holdReads?.();
    try {
      for (let i = results.length; i < end; i += 1) {
        const turn = yieldWhenSpent();
        if (turn !== undefined) await turn;
        const entry = attempt(deps, items[i]!, caller);
        if (entry instanceof Promise) pending = true;
        round.push(entry);
      }
    } finally {
      release?.();
    }
    for (const entry of pending ? await Promise.all(round) : (round as BatchEntry[])) {
      if (entry.ok) succeeded += 1;
      results.push(entry);
    }
  }
  if (results.length < items.length) {
    const error = deps.quota.refusal(caller.principal.account);
    while (results.length < items.length)
      results.push({ ok: false, kind: classifyItem(items[results.length]!), error, requestId: caller.requestId });
  }
  return results;
}

/**
 * A batch whose estimated work (domain/work) is past MAX_REQUEST_WORK is refused whole, before any
 * item is computed or charged; the request has spent its rate limit like any other.
 */
function requireWithinBudget(items: readonly BatchItem[]): void {
  const work = requestWork(items);
  if (work <= MAX_REQUEST_WORK) return;
  throw new ApiError(
    'INVALID_REQUEST',
    `The batch's estimated work (value digits × unit terms, summed over its items) is past ${MAX_REQUEST_WORK.toLocaleString('en-US')}: split it into smaller batches.`,
    { param: 'items' },
  );
}

function errorShape(error: unknown, requestId: string, onUnexpected: BatchDeps['onUnexpected']): ApiError {
  if (error instanceof ApiError) return error;
  onUnexpected(error, requestId);
  return new ApiError('INTERNAL', INTERNAL_MESSAGE);
}
