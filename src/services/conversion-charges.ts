import { quotaExceeded, type QuotaState } from '../domain/quota';
import type { Principal } from './auth';
import type { PublicationLoader } from './currency/publication';
import type { Charge, QuotaMeter } from './quota';
import { yieldWhenSpent } from './work-slices';

/** Who asks, and the per-request publication loader (one cache read for a whole batch). */
export interface Caller {
  principal: Principal;
  requestId: string;
  publications: PublicationLoader;
  /** Holds the request's publication reads until the release it returns is called (RequestContext.holdReads). */
  holdReads?(): () => void;
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

/** What charging a conversion reads: the quota meter, and the clock for the refusal's reset time. */
export interface ChargeDeps {
  quota: QuotaMeter;
  clock: () => Date;
}

/**
 * One conversion, charged only once it has succeeded: a failure never costs anything. A field
 * planned past the remaining quota is refused before anything is computed.
 */
export async function chargedConversion<T>({ quota, clock }: ChargeDeps, convert: () => Promise<T>, caller: Caller): Promise<T> {
  if (caller.allowance === 0) throw quota.refusal(caller.principal.account);
  // Many conversion fields of one document resolve in one turn: each waits for its own slice.
  const turn = yieldWhenSpent();
  if (turn !== undefined) await turn;
  let result = await convert();
  // The state the charge read is reported on a refusal too: the headers need no second read.
  let charge = await quota.chargeUpTo(caller.principal.account, 1, caller.keysRevision);
  if (charge.stale) {
    charge = await chargeChecked(quota, caller, 1, async () => {
      result = await convert();
      return 1;
    });
  } else if (caller.keysRevision !== undefined) caller.keyConfirmed?.(caller.keysRevision);
  const { granted, state } = charge;
  caller.reportCharge(granted, state);
  if (granted === 0) throw quotaExceeded(clock(), state.limit);
  return result;
}

/**
 * After a charge that found the keys changed since the caller's key was taken unconfirmed (it
 * charged nothing): the key is checked again in full (revoked: the request fails UNAUTHORIZED,
 * uncharged); still active under another account or plan, the work is done again under it
 * (`redo`, answering what it now wants charged); then `wanted` is charged again.
 */
export async function chargeChecked(quota: QuotaMeter, caller: Caller, wanted: number, redo: () => Promise<number>): Promise<Charge> {
  for (;;) {
    const before = caller.principal.account;
    caller.principal = await caller.recheckKey!();
    if (caller.principal.account.id !== before.id || caller.principal.account.plan !== before.plan) wanted = await redo();
    if (wanted === 0) return { granted: 0, state: await quota.state(caller.principal.account) };
    // Checked in full now: this charge checks no revision, so it cannot be stale.
    const charge = await quota.chargeUpTo(caller.principal.account, wanted);
    if (!charge.stale) return charge;
  }
}
