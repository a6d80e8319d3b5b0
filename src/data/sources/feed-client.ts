import { EcbFetchError, httpGet } from '../rates/http-get';
import { withRetries } from '../rates/retry';
import type { SourcesTuning } from './tuning';

export interface FeedClientOptions
  extends Pick<SourcesTuning, 'connectTimeoutMs' | 'totalTimeoutMs' | 'tries' | 'retryBaseDelayMs' | 'maxBytes'> {
  fetch: typeof fetch;
  random: () => number;
  /** Aborts every request and retry pause (service stop). */
  signal?: AbortSignal;
}

/**
 * One GET of a publisher's feed with the ECB loader's timeouts and jittered retries (http-get.ts,
 * retry.ts): a network error, a timeout, a 5xx, 408 or 429 is tried again, any other status is not.
 */
export function getFeed(url: string, options: FeedClientOptions): Promise<Uint8Array> {
  const { tries, retryBaseDelayMs: baseDelayMs, random, signal } = options;
  return withRetries(() => getOnce(url, options), isRetryable, { tries, baseDelayMs, random, signal });
}

async function getOnce(url: string, o: FeedClientOptions): Promise<Uint8Array> {
  const response = await httpGet(o.fetch, url, {
    headers: { accept: '*/*' },
    connectTimeoutMs: o.connectTimeoutMs,
    totalTimeoutMs: o.totalTimeoutMs,
    maxBytes: o.maxBytes,
    signal: o.signal,
  });
  if (response.status !== 200) {
    const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
    throw new EcbFetchError(`GET ${url}: HTTP ${response.status}`, retryable);
  }
  return response.bytes;
}

function isRetryable(error: unknown): boolean {
  return error instanceof EcbFetchError && error.retryable;
}
