import { ApiError } from '../domain/errors';

/** Seconds a refused export is told to wait: an export takes about that long. */
export const EXPORT_RETRY_AFTER_SECONDS = 1;

/** Who an export is computed or sent for: a key, asked with the key itself or through a signed link it made. */
export interface ExportHolder {
  keyId: string;
  /** Asked through a signed link: it takes the key's link slots, never those of the key's own requests. */
  viaLink: boolean;
}

export interface ExportSlotsOptions {
  /** EXPORTS_IN_FLIGHT: exports a key has at once for its own requests, and as many more for its links. */
  perHolder: number;
  /** EXPORTS_PER_INSTANCE: exports this instance has at once, whatever their keys. */
  perInstance: number;
  /** EXPORT_MEMORY_MB, in bytes: the sum of the estimates of the exports in flight at once. */
  memoryBytes: number;
}

export interface ExportSlots {
  /**
   * A slot for one export that holds about `bytes` while in flight; the function returned gives it
   * back (once). Refused with RATE_LIMIT_EXCEEDED past the holder's slots, SERVICE_UNAVAILABLE
   * past the instance's count or memory (the first export in flight is always admitted, however
   * large its estimate), each with Retry-After.
   */
  claim(holder: ExportHolder, bytes: number): () => void;
  /** Exports in flight on this instance, and the sum of their estimates. */
  inFlight(): { exports: number; bytes: number };
}

/**
 * The bound on series exports in flight. A key's own requests and the signed links it made draw
 * on separate slots, so that holders of a link can never take the key owner's exports from them;
 * the instance's count and memory bound every key's exports together.
 */
export function createExportSlots({ perHolder, perInstance, memoryBytes }: ExportSlotsOptions): ExportSlots {
  const held = new Map<string, number>();
  let exports = 0;
  let bytesHeld = 0;

  const refuseHolder = (holder: ExportHolder): ApiError => {
    const count = perHolder === 1 ? 'one export' : `${perHolder} exports`;
    const whose = holder.viaLink ? 'for the signed links of a key' : 'per key';
    return new ApiError(
      'RATE_LIMIT_EXCEEDED',
      `Too many series exports at once: at most ${count} in flight ${whose}. Retry in ${EXPORT_RETRY_AFTER_SECONDS} second.`,
      {
        retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS,
      },
    );
  };

  return {
    claim(holder, bytes) {
      const name = `${holder.viaLink ? 'link' : 'key'}:${holder.keyId}`;
      const mine = held.get(name) ?? 0;
      if (mine >= perHolder) throw refuseHolder(holder);
      if (exports >= perInstance || (exports > 0 && bytesHeld + bytes > memoryBytes)) {
        throw new ApiError(
          'SERVICE_UNAVAILABLE',
          `This server is sending as many series exports as it can at once. Retry in ${EXPORT_RETRY_AFTER_SECONDS} second.`,
          {
            retryAfterSeconds: EXPORT_RETRY_AFTER_SECONDS,
          },
        );
      }
      held.set(name, mine + 1);
      exports += 1;
      bytesHeld += bytes;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        exports -= 1;
        bytesHeld -= bytes;
        const left = (held.get(name) ?? 1) - 1;
        if (left > 0) held.set(name, left);
        else held.delete(name);
      };
    },
    inFlight: () => ({ exports, bytes: bytesHeld }),
  };
}
