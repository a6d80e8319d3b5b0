import { z } from 'zod';
import { SOURCE_IDS, type SourceId } from './domain/sources/types';
import { DEFAULT_BASE_URLS } from './data/sources/feed-urls';
import type { FeedSourceId } from './services/currency/source-rates';

/** The sources besides the ECB, in the catalogue's id order. */
export const FEED_SOURCE_IDS = SOURCE_IDS.filter((id): id is FeedSourceId => id !== 'ecb');

export interface SourcesConfig {
  /** RATE_SOURCES without the ECB (always served): the sources fetched, loaded and reported. */
  enabled: readonly FeedSourceId[];
  /** BOC_BASE_URL … NBU_BASE_URL: where each source is fetched, without a trailing slash. */
  baseUrls: Readonly<Record<FeedSourceId, string>>;
}

const idList = `all, or a comma list of ${SOURCE_IDS.join(', ')}`;

/** `all` (the default), or a comma list of source ids (`ecb` alone: the ECB only). */
export const rateSourcesSchema = z
  .string()
  .default('all')
  .transform((text, ctx) => {
    if (text.trim() === 'all') return [...SOURCE_IDS];
    const ids = text.split(',').map((id) => id.trim());
    const unknown = ids.find((id) => !(SOURCE_IDS as readonly string[]).includes(id));
    if (unknown !== undefined) {
      ctx.addIssue({ code: 'custom', message: `must be ${idList} (${JSON.stringify(unknown)} is not a source)` });
      return z.NEVER;
    }
    return ids as SourceId[];
  });

const baseUrlName = (id: FeedSourceId) => `${id.toUpperCase()}_BASE_URL` as const;

/** One `<ID>_BASE_URL` per source, like ECB_BASE_URL: tests point them at a local server. */
export const sourceBaseUrlsSchema = Object.fromEntries(
  FEED_SOURCE_IDS.map((id) => [baseUrlName(id), z.url({ protocol: /^https?$/ }).optional()]),
) as Record<`${Uppercase<FeedSourceId>}_BASE_URL`, z.ZodOptional<z.ZodURL>>;

export function sourcesConfigOf(e: { RATE_SOURCES: SourceId[] } & Partial<Record<string, unknown>>): SourcesConfig {
  const enabled = FEED_SOURCE_IDS.filter((id) => e.RATE_SOURCES.includes(id));
  const baseUrls = Object.fromEntries(
    FEED_SOURCE_IDS.map((id) => [id, String(e[baseUrlName(id)] ?? DEFAULT_BASE_URLS[id]).replace(/\/+$/, '')]),
  ) as Record<FeedSourceId, string>;
  return { enabled, baseUrls };
}
