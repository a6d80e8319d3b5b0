export interface RetryOptions {
  /** Attempts in all, the first included. */
  tries: number;
  /** The first pause; it doubles after each failure, times a jitter factor in [0.5, 1.5). */
  baseDelayMs: number;
  random: () => number;
  /** Stops waiting (and retrying) at once, e.g. on shutdown. */
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds, fails with an error `retryable` refuses, or runs out of tries.
 * The jitter keeps many instances that failed together from retrying in lock-step.
 */
export async function withRetries<T>(attempt: () => Promise<T>, retryable: (error: unknown) => boolean, options: RetryOptions): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= options.tries || !retryable(error) || options.signal?.aborted) throw error;
      await pause(options.baseDelayMs * 2 ** (n - 1) * (0.5 + options.random()), options.signal);
    }
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    // Not unref'd: a one-shot CLI refresh must wait for its retries (an unref'd pause ended the
    // process mid-wait, exit 13); a server stops them through `signal`.
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
