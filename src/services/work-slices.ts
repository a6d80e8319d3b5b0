/**
 * Synchronous work runs in slices of about SLICE_MS of the event loop; past that, the next piece
 * of work waits for a later turn (setImmediate), so that other requests' sockets and timers are
 * served between slices. The slice is the process's, not a request's: everything computed in one
 * turn of the loop counts towards it, so that many fields or requests together cannot hold it
 * longer than one of them could.
 */
export const SLICE_MS = 2;

let sliceStart: number | undefined;
let nextTurn: Promise<void> | undefined;

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

/** Resolves on a later turn of the event loop; every caller waiting in one turn shares the wait. */
export function nextSlice(): Promise<void> {
  nextTurn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      nextTurn = undefined;
      resolve();
    }),
  );
  return nextTurn;
}

/** Waits for a later turn only when the current slice is spent (no promise otherwise: a cheap call stays synchronous). */
export function yieldWhenSpent(): Promise<void> | undefined {
  return sliceSpent() ? nextSlice() : undefined;
}
