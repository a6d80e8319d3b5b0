/**
 * Synchronous work runs in slices of about SLICE_MS of the event loop; past that, the next piece
 * of work waits for a later turn (setImmediate), so that other requests' sockets and timers are
 * served between slices. The slice is the process's, not a request's: everything computed in one
 * turn of the loop counts towards it, so that many fields or requests together cannot hold it
 * longer than one of them could.
 */
export const SLICE_MS = 2;

let sliceStart: number | undefined;
/** Callers waiting for a slice, first come first served: one is woken per turn of the loop. */
const waiting: (() => void)[] = [];

const endSlice = (): void => {
  sliceStart = undefined;
};

/**
 * Whether the current slice is spent. The first call of a turn starts a slice and ends it at the
 * loop's next check phase, so a slice never outlives the turn it began in.
 */
export function sliceSpent(): boolean {
  const now = performance.now();
  if (sliceStart === undefined) {
    sliceStart = now;
    setImmediate(endSlice);
    return false;
  }
  return now - sliceStart >= SLICE_MS;
}

/** A later turn: the first waiter gets a fresh slice of its own; the next waiter, the turn after. */
function wakeNext(): void {
  sliceStart = performance.now();
  setImmediate(endSlice);
  const next = waiting.shift();
  if (waiting.length > 0) setImmediate(wakeNext);
  next?.();
}

/**
 * Waits, when the current slice is spent, for a later turn with a slice for this caller alone (no
 * promise otherwise: a cheap call stays synchronous). Callers that wait together resume one per
 * turn, in the order they came, so many fields of one document never run in one turn.
 */
export function yieldWhenSpent(): Promise<void> | undefined {
  if (!sliceSpent()) return undefined;
  return new Promise<void>((resolve) => {
    if (waiting.push(resolve) === 1) setImmediate(wakeNext);
  });
}
