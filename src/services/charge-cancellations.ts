import type { AccountStore } from './account-store';

/** The first retry of a cancellation that failed, doubled up to MAX_RETRY_MS while the database stays away. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 1_000;

export interface ChargeCancellations {
  /** Cancels this charge as soon as the database answers (retried until it does). */
  cancel(chargeId: string): void;
  /** Charges whose cancellation has not been applied yet. */
  pending(): number;
  /** Tries once more now to apply what is pending (shutdown, tests). */
  flush(): Promise<void>;
}

/**
 * "A failure is never charged" when a charge's outcome is unknown: a request whose charge did not
 * answer (deadline passed, connection lost) is answered 503, and its charge id is cancelled here,
 * in batches, retried with a short backoff until the database takes it (the store makes a
 * cancellation idempotent and makes a charge that arrives after it grant nothing). A process that
 * dies with cancellations pending leaves those charges counted: as with a kill -9, at most the
 * requests it had in flight.
 */
export function createChargeCancellations(
  store: Pick<AccountStore, 'cancelCharges'>,
  onError: (error: unknown) => void = () => undefined,
): ChargeCancellations {
  const waiting = new Set<string>();
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = FIRST_RETRY_MS;

  const attempt = async () => {
    if (waiting.size === 0 || !store.cancelCharges) return;
    const ids = [...waiting];
    try {
      await store.cancelCharges(ids);
      for (const id of ids) waiting.delete(id);
      delay = FIRST_RETRY_MS;
    } catch (error) {
      onError(error);
      delay = Math.min(MAX_RETRY_MS, delay * 2);
    }
    if (waiting.size > 0) schedule(delay);
  };
  const run = () => {
    running ??= attempt().finally(() => (running = undefined));
    return running;
  };
  const schedule = (ms: number) => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void run();
    }, ms);
    timer.unref();
  };

  return {
    cancel(chargeId) {
      if (!store.cancelCharges) return;
      waiting.add(chargeId);
      schedule(0);
    },
    pending: () => waiting.size,
    async flush() {
      await running;
      await run();
    },
  };
}
