import { ApiError } from '../domain/errors';
import { ByteLru } from './byte-lru';
import { revisionKey } from './currency/history';
import type { RatesReader } from './currency/rates';

/** A series page as written in one media type, and the strong validator of its bytes. */
export interface ExportBody {
  readonly body: Buffer;
  readonly etag: string;
}

/** Seconds a key refused for its exports in flight is told to wait: an export takes about that long. */
export const EXPORT_RETRY_AFTER_SECONDS = 1;

export interface SeriesExports {
  /** A complete page as written, kept from an earlier answer under the same rates; undefined otherwise. */
  cached(key: string): ExportBody | undefined;
  /** Keeps a complete page as written, until the rates change or it is the least recently used past the bound. */
  keep(key: string, body: ExportBody): void;
  /**
   * One of the key's export slots (EXPORTS_IN_FLIGHT on this instance), or RATE_LIMIT_EXCEEDED with
   * Retry-After when they are all taken; the function returned gives the slot back (once).
   */
  claim(keyId: string): () => void;
  /**
   * What names the rates held, for a validator made without the bytes: the reader's revision
   * (the same on every instance of one database), else the newest publication and how many
   * changes this process has seen.
   */
  revisionTag(): string;
  /** The most bytes of a written page that `keep` keeps (a larger one is not worth collecting). */
  readonly keepsUpTo: number;
}

export interface SeriesExportsOptions {
  rates: RatesReader;
  /** Bytes of written pages kept at most (LRU). */
  cacheBytes: number;
  inFlightPerKey: number;
}

/**
 * What keeps series exports cheap: complete pages written once per rates revision (a page that
 * can no longer change is the same bytes until the rates do), and a bound on each key's exports in
 * flight. The cache is emptied when the rates announce a new revision, and a page kept under
 * another revision (a reader that announces none) is never served.
 */
export function createSeriesExports({ rates, cacheBytes, inFlightPerKey }: SeriesExportsOptions): SeriesExports {
  const pages = new ByteLru<ExportBody>(cacheBytes);
  let revision = revisionKey(rates);
  let changes = 0;
  const current = (): void => {
    const now = revisionKey(rates);
    if (now === revision) return;
    revision = now;
    changes += 1;
    pages.clear();
  };
  rates.onRevision?.(current);
  const inFlight = new Map<string, number>();

  return {
    cached(key) {
      current();
      return pages.get(key);
    },
    keep(key, body) {
      current();
      pages.set(key, body, body.body.length);
    },
    revisionTag() {
      current();
      return rates.revision?.() ?? `${rates.latest()?.date ?? ''}#${changes}`;
    },
    keepsUpTo: pages.largestKept,
    claim(keyId) {
      const held = inFlight.get(keyId) ?? 0;
      if (held >= inFlightPerKey) {
        const exports = inFlightPerKey === 1 ? 'one export' : `${inFlightPerKey} exports`;
        throw new ApiError(
          'RATE_LIMIT_EXCEEDED',
          `Too many series exports at once: at most ${exports} in flight per key. Retry in ${EXPORT_RETRY_AFTER_SECONDS} second.`,
          {
            retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS,
          },
        );
      }
      inFlight.set(keyId, held + 1);
      let given = false;
      return () => {
        if (given) return;
        given = true;
        const left = (inFlight.get(keyId) ?? 1) - 1;
        if (left > 0) inFlight.set(keyId, left);
        else inFlight.delete(keyId);
      };
    },
  };
}
