import type { Validator } from './cache';
import { EcbFetchError, httpGet } from './http-get';
import { withRetries } from './retry';
import type { RatesTuning } from './tuning';

/** The ECB files the service reads (under ECB_BASE_URL). The zip is the history at a third of the XML's size. */
export const ECB_FILES = {
  history: 'eurofxref-hist.zip',
  ninetyDays: 'eurofxref-hist-90d.xml',
  daily: 'eurofxref-daily.xml',
} as const;

export type EcbFile = (typeof ECB_FILES)[keyof typeof ECB_FILES];

export type EcbResponse = { status: 'not-modified'; url: string } | { status: 'ok'; url: string; bytes: Uint8Array; validator: Validator };

/** Timeouts, tries and size cap come from the service's tuning (see tuning.ts). */
export interface EcbClientOptions
  extends Pick<RatesTuning, 'connectTimeoutMs' | 'historyTimeoutMs' | 'fileTimeoutMs' | 'tries' | 'retryBaseDelayMs' | 'maxBytes'> {
  baseUrl: string;
  fetch: typeof fetch;
  random: () => number;
  /** Aborts every request and retry pause (service stop). */
  signal?: AbortSignal;
}

/**
 * Conditional GETs of the ECB files with timeouts and jittered retries. At most one request per
 * file is in flight: a second caller gets the running one's promise.
 */
export class EcbClient {
  private readonly options: EcbClientOptions;
  private readonly inFlight = new Map<EcbFile, Promise<EcbResponse>>();

  constructor(options: EcbClientOptions) {
    this.options = options;
  }

  urlOf(file: EcbFile): string {
    return `${this.options.baseUrl}/${file}`;
  }

  /** 'not-modified' when the validator still matches (HTTP 304): nothing new. */
  get(file: EcbFile, validator: Validator | undefined): Promise<EcbResponse> {
    let running = this.inFlight.get(file);
    if (!running) {
      const { tries, retryBaseDelayMs: baseDelayMs, random, signal } = this.options;
      running = withRetries(() => this.once(file, validator), isRetryable, { tries, baseDelayMs, random, signal }).finally(() => {
        this.inFlight.delete(file);
      });
      this.inFlight.set(file, running);
    }
    return running;
  }

  private async once(file: EcbFile, validator: Validator | undefined): Promise<EcbResponse> {
    const o = this.options;
    const url = this.urlOf(file);
    const headers: Record<string, string> = { accept: file.endsWith('.zip') ? 'application/zip' : 'application/xml, text/xml' };
    if (validator?.etag) headers['if-none-match'] = validator.etag;
    if (validator?.lastModified) headers['if-modified-since'] = validator.lastModified;
    const totalTimeoutMs = file === ECB_FILES.history ? o.historyTimeoutMs : o.fileTimeoutMs;
    const response = await httpGet(o.fetch, url, {
      headers,
      connectTimeoutMs: o.connectTimeoutMs,
      totalTimeoutMs,
      maxBytes: o.maxBytes,
      signal: o.signal,
    });
    if (response.status === 304) return { status: 'not-modified', url };
    if (response.status !== 200) {
      const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
      throw new EcbFetchError(`GET ${url}: HTTP ${response.status}`, retryable);
    }
    const etag = response.headers.get('etag') ?? undefined;
    const lastModified = response.headers.get('last-modified') ?? undefined;
    return { status: 'ok', url, bytes: response.bytes, validator: { etag, lastModified } };
  }
}

function isRetryable(error: unknown): boolean {
  return error instanceof EcbFetchError && error.retryable;
}
