/**
 * Which due webhook deliveries an instance starts now, and each endpoint's circuit. Pure: the
 * dispatcher passes what is in flight, the circuits and the time.
 *
 * Rules: an endpoint has at most `perEndpoint` attempts in flight, an account at most `perAccount`,
 * the instance at most `total`; accounts take turns (the account with the fewest attempts in flight
 * first, then round-robin, starting after the account served last), and within an account the endpoint with the fewest attempts in flight goes first, so a slow
 * or dead endpoint only ever holds its own slots. An open circuit starts nothing; a half-open one
 * starts one probe at a time.
 */

/** A pending delivery whose time has come, as the outbox lists it (oldest first). */
export interface DueDelivery {
  eventId: string;
  endpointId: string;
  accountId: string;
}

export interface SlotLimits {
  perEndpoint: number;
  perAccount: number;
  total: number;
}

export interface InFlight {
  /** Attempts in flight per endpoint id. */
  endpoints: ReadonlyMap<string, number>;
  /** Attempts in flight per account id. */
  accounts: ReadonlyMap<string, number>;
  total: number;
}

/** An endpoint's circuit: consecutive failed attempts and, once open, until when it starts nothing. */
export interface Circuit {
  failures: number;
  /** Epoch ms; null while closed. */
  openUntil: number | null;
  /** The cool-down of the latest opening (doubles while probes fail). */
  cooldownMs: number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface CircuitPolicy {
  /** Consecutive failed attempts that open the circuit. */
  failuresToOpen: number;
  /** The first cool-down; each failed probe doubles it, up to maxCooldownMs. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_CIRCUIT_POLICY: CircuitPolicy = { failuresToOpen: 5, cooldownMs: 30_000, maxCooldownMs: 600_000 };

export const DEFAULT_SLOT_LIMITS: SlotLimits = { perEndpoint: 2, perAccount: 8, total: 32 };

export function circuitState(circuit: Circuit | undefined, now: number): CircuitState {
  if (!circuit || circuit.openUntil === null) return 'closed';
  return now < circuit.openUntil ? 'open' : 'half-open';
}

/**
 * The circuit after an attempt's outcome: a success closes it (undefined: nothing to remember); a
 * failure counts, opens it at `failuresToOpen`, and a failed probe (half-open) opens it again for
 * twice the cool-down. Failures of attempts that were in flight while it was open change nothing more.
 */
export function circuitAfter(circuit: Circuit | undefined, succeeded: boolean, now: number, policy: CircuitPolicy): Circuit | undefined {
  if (succeeded) return undefined;
  const state = circuitState(circuit, now);
  const failures = (circuit?.failures ?? 0) + 1;
  if (state === 'half-open') {
    const cooldownMs = Math.min(policy.maxCooldownMs, circuit!.cooldownMs * 2);
    return { failures, openUntil: now + cooldownMs, cooldownMs };
  }
  if (state === 'open') return { ...circuit!, failures };
  if (failures >= policy.failuresToOpen) return { failures, openUntil: now + policy.cooldownMs, cooldownMs: policy.cooldownMs };
  return { failures, openUntil: null, cooldownMs: circuit?.cooldownMs ?? policy.cooldownMs };
}

/** How many more attempts this endpoint may start now. */
export function endpointRoom(
  endpointId: string,
  inFlight: InFlight,
  circuits: ReadonlyMap<string, Circuit>,
  limits: SlotLimits,
  now: number,
): number {
  const running = inFlight.endpoints.get(endpointId) ?? 0;
  switch (circuitState(circuits.get(endpointId), now)) {
    case 'open':
      return 0;
    case 'half-open':
      return running === 0 ? 1 : 0;
    case 'closed':
      return Math.max(0, limits.perEndpoint - running);
  }
}

export interface Picks {
  /** The deliveries to claim and start, in the order chosen. */
  picked: DueDelivery[];
  /** The account served last (where the next turn starts after), unchanged when nothing was picked. */
  lastAccount: string | undefined;
}

/** The deliveries to start now, taking turns across accounts (see the rules above). */
export function pickDeliveries(
  due: readonly DueDelivery[],
  inFlight: InFlight,
  circuits: ReadonlyMap<string, Circuit>,
  limits: SlotLimits,
  now: number,
  lastAccount?: string,
): Picks {
  const endpoints = new Map(inFlight.endpoints);
  const accounts = new Map(inFlight.accounts);
  const room = new Map<string, number>();
  const roomOf = (endpointId: string) => room.get(endpointId) ?? endpointRoom(endpointId, inFlight, circuits, limits, now);
  const queues = new Map<string, DueDelivery[]>();
  for (const delivery of due) {
    if (roomOf(delivery.endpointId) === 0) continue;
    const queue = queues.get(delivery.accountId) ?? [];
    if (queue.length === 0) queues.set(delivery.accountId, queue);
    queue.push(delivery);
  }
  const order = turnOrder([...queues.keys()], inFlight.accounts, lastAccount);
  const picked: DueDelivery[] = [];
  let total = inFlight.total;
  let served = lastAccount;
  let progress = true;
  while (progress && total < limits.total) {
    progress = false;
    for (const accountId of order) {
      if (total >= limits.total) break;
      if ((accounts.get(accountId) ?? 0) >= limits.perAccount) continue;
      const queue = queues.get(accountId)!;
      const index = leastBusy(queue, endpoints, roomOf);
      if (index < 0) continue;
      const [delivery] = queue.splice(index, 1) as [DueDelivery];
      picked.push(delivery);
      room.set(delivery.endpointId, roomOf(delivery.endpointId) - 1);
      endpoints.set(delivery.endpointId, (endpoints.get(delivery.endpointId) ?? 0) + 1);
      accounts.set(accountId, (accounts.get(accountId) ?? 0) + 1);
      total += 1;
      served = accountId;
      progress = true;
    }
  }
  return { picked, lastAccount: served };
}

/** The accounts with the fewest attempts in flight first; among equals, id order starting with the first after `lastAccount`. */
function turnOrder(accountIds: string[], running: ReadonlyMap<string, number>, lastAccount: string | undefined): string[] {
  const sorted = accountIds.sort();
  const next = lastAccount === undefined ? 0 : sorted.findIndex((id) => id > lastAccount);
  const rotated = next <= 0 ? sorted : [...sorted.slice(next), ...sorted.slice(0, next)];
  const position = new Map(rotated.map((id, i) => [id, i]));
  return rotated.sort((a, b) => (running.get(a) ?? 0) - (running.get(b) ?? 0) || position.get(a)! - position.get(b)!);
}

/** The oldest delivery in `queue` whose endpoint has room and the fewest attempts in flight; -1 when none has room. */
function leastBusy(queue: readonly DueDelivery[], endpoints: ReadonlyMap<string, number>, roomOf: (endpointId: string) => number): number {
  let best = -1;
  let bestBusy = Infinity;
  for (let i = 0; i < queue.length; i++) {
    const endpointId = queue[i]!.endpointId;
    if (roomOf(endpointId) <= 0) continue;
    const busy = endpoints.get(endpointId) ?? 0;
    if (busy < bestBusy) {
      best = i;
      bestBusy = busy;
    }
  }
  return best;
}

/** After a due delivery was left by a pass with no attempt in flight to end (another instance's claim not committed yet), the next look. */
const RECHECK_MS = 1_000;

/**
 * When the next pass should run: the earliest of the next due delivery (a time already past means
 * one the pass could not start: an attempt in flight ending wakes the dispatcher, else a recheck
 * soon), an open circuit's end, the next expiry scan, and the sweep.
 */
export function nextWakeAt(state: {
  at: number;
  dueAt: number | undefined;
  attemptsInFlight: number;
  circuitsOpenUntil: readonly number[];
  scanAt: number;
  sweepMs: number;
}): number {
  const { at, dueAt, attemptsInFlight, circuitsOpenUntil, scanAt, sweepMs } = state;
  const times = [at + sweepMs, scanAt, ...circuitsOpenUntil.filter((until) => until > at)];
  if (dueAt !== undefined) times.push(dueAt > at ? dueAt : attemptsInFlight > 0 ? Infinity : at + RECHECK_MS);
  return Math.min(...times);
}
