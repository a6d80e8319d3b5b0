import { existsSync } from 'node:fs';
import type { Config } from '../../config';
import type { RedisWatch } from '../../redis-outage';
import { PersistedDocuments } from '../../services/persisted-documents';
import { loadPersistedManifest } from './manifest';
import { RedisDocuments } from './redis-documents';

export interface OpenPersistedDocumentsOptions {
  /** Share registrations through REDIS_URL when it is set (main.ts); false keeps them in this instance only. */
  shared?: boolean;
  /** Redis key prefix of the documents (tests use a unique one per run). */
  prefix?: string;
  redisWatch?: RedisWatch;
}

/**
 * The persisted-document store of a configuration: the manifest (PERSISTED_DOCUMENTS, or the
 * default file when present; a wrong entry throws PersistedManifestError), this instance's bounded
 * registrations (PERSISTED_DOCUMENTS_CACHE_MB, PERSISTED_DOCUMENTS_PER_KEY_HOUR) and, with
 * REDIS_URL, Redis for the registrations of every instance (PERSISTED_DOCUMENTS_TTL_DAYS,
 * PERSISTED_DOCUMENTS_SHARED_MB).
 */
export function openPersistedDocuments(
  config: Config,
  { shared = true, prefix, redisWatch }: OpenPersistedDocumentsOptions = {},
): PersistedDocuments {
  const { manifestFile, manifestRequired, ttlSeconds, cacheBytes, sharedBytes, registrationsPerHour } = config.persistedDocuments;
  const manifest = manifestRequired || existsSync(manifestFile) ? loadPersistedManifest(manifestFile) : new Map<string, string>();
  const redis =
    shared && config.redisUrl !== undefined
      ? new RedisDocuments({
          url: config.redisUrl,
          ttlSeconds,
          maxBytes: sharedBytes,
          registrationsPerHour,
          watch: redisWatch,
          ...(prefix ? { prefix } : {}),
        })
      : undefined;
  return new PersistedDocuments({ manifest, maxBytes: cacheBytes, shared: redis, registrationsPerHour });
}
