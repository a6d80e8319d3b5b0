import { exportCost } from '../domain/currency/series-export';
import type { SeriesEntry } from '../domain/currency/series';
import type { PlanId } from '../domain/plans';
import { ByteLru } from './byte-lru';
import { revisionKey } from './currency/history';
import type { RatesReader } from './currency/rates';
import type { RateSeries, SeriesAnswer, SeriesPlan, SeriesQuery } from './currency/series';
import { createExportSlots, type ExportSlots, type ExportSlotsOptions } from './export-slots';

/** A series page as written in one media type, and the strong validator of its bytes. */
export interface ExportBody {
  readonly body: Buffer;
  readonly etag: string;
}

/** What an export needs of the request that asks for it (a RequestContext gives all three). */
export interface ExportRequest {
  /** Asked through a signed link: the export takes the key's link slots. */
  readonly viaLink: boolean;
  /** Spends `points` more of the request's rate limit; RATE_LIMIT_EXCEEDED past it. */
  spendRequests(points: number): Promise<void>;
  /** Calls `release` once the request's answer has been sent, or its client has gone. */
  holdUntilAnswered(release: () => void): void;
}

/** Milliseconds of computing per chunk of a page; the event loop serves other requests between chunks. */
export const CHUNK_BUDGET_MS = 1.5;

/** Bytes a page held in memory takes per rate (its entry objects and strings), as the slots count it before it is computed. */
const BYTES_PER_RATE = 96;

export interface SeriesExports {
  /** A complete page as written, kept from an earlier answer under the same rates; undefined otherwise. */
  cached(key: string): ExportBody | undefined;
  /** Keeps a complete page as written, until the rates change or it is the least recently used past the bound. */
  keep(key: string, body: ExportBody): void;
  /**
   * Admits a page to be computed for the key `keyId`: one of its export slots (export-slots.ts:
   * RATE_LIMIT_EXCEEDED past the key's, SERVICE_UNAVAILABLE past the instance's), for a page that
   * holds about `bytes` while in flight (pageBytes when absent), then the page's cost spent: one
   * request per 10,000 rates beyond the one its admission spent, before any rate is read. Answers
   * the function that gives the slot back (once).
   */
  admit(plan: SeriesPlan, keyId: string, request: ExportRequest, bytes?: number): Promise<() => void>;
  /**
   * The page a GraphQL `rateSeries` field answers: planned, served from the cache when complete
   * and computed before under the same rates, else admitted as `admit` admits it and computed a
   * chunk at a time; the slot is held until the request's answer is sent.
   */
  page(query: SeriesQuery, account: PlanId, keyId: string, request: ExportRequest): Promise<SeriesAnswer>;
  /**
   * What names the rates held, for a validator made without the bytes: the reader's revision
   * (the same on every instance of one database), else the newest publication and how many
   * changes this process has seen.
   */
  revisionTag(): string;
  /** The most bytes of a written page that `keep` keeps (a larger one is not worth collecting). */
  readonly keepsUpTo: number;
  /**
   * Reserves `bytes` more of what the streamed pages in flight collect for `keep` while their
   * clients read (a negative number gives them back): true when that stays within `collectsUpTo`
   * for all of them together on this instance, else false, and the stream keeps nothing. So clients
   * that read slowly, however many, hold at most that much of collected pages between them.
   */
  collect(bytes: number): boolean;
  /** What the streamed pages in flight on this instance may collect between them: half the cache, so a few large exports asked at once are all kept. */
  readonly collectsUpTo: number;
  /** The slots of the exports in flight. */
  readonly slots: ExportSlots;
}

export interface SeriesExportsOptions {
  rates: RatesReader;
  series: Pick<RateSeries, 'planSeries' | 'answerSeries'>;
  /** Bytes of pages kept at most (LRU), as written and as GraphQL answers them. */
  cacheBytes: number;
  slots: ExportSlotsOptions;
}

/**
 * What keeps series exports cheap, for REST and GraphQL alike: complete pages kept once per rates
 * revision (a page that can no longer change is the same until the rates do), a cost in requests
 * spent before a page is computed, and a bound on the exports in flight (per key, per instance).
 * The cache is emptied when the rates announce a new revision, and a page kept under another
 * revision (a reader that announces none) is never served.
 */
export function createSeriesExports({ rates, series, cacheBytes, slots: slotOptions }: SeriesExportsOptions): SeriesExports {
  const pages = new ByteLru<ExportBody | SeriesAnswer>(cacheBytes);
  const slots = createExportSlots(slotOptions);
  /** Bytes the streamed pages in flight hold collected for the cache. */
  let collecting = 0;
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
  /** The currencies a page prices: those asked, else every one its source quotes in it (the ECB: every one it ever quoted) but the base. */
  const currenciesOf = (plan: SeriesPlan) => plan.asked?.length ?? plan.quotedCurrencies ?? rates.knownCurrencies().size - 1;
  const ratesOf = (plan: SeriesPlan) => plan.dates.length * Math.max(1, currenciesOf(plan));

  const admit: SeriesExports['admit'] = async (plan, keyId, request, bytes = ratesOf(plan) * BYTES_PER_RATE) => {
    const release = slots.claim({ keyId, viaLink: request.viaLink }, bytes);
    try {
      const cost = exportCost(plan.dates.length, currenciesOf(plan));
      if (cost > 1) await request.spendRequests(cost - 1);
      return release;
    } catch (error) {
      release();
      throw error;
    }
  };

  return {
    cached(key) {
      current();
      const page = pages.get(key);
      return page && 'body' in page ? page : undefined;
    },
    keep(key, body) {
      current();
      pages.set(key, body, body.body.length);
    },
    admit,
    async page(query, account, keyId, request) {
      const plan = series.planSeries(query, account);
      const key = isKept(plan) ? JSON.stringify(['graphql', ...pageKey(plan)]) : undefined;
      current();
      const kept = key === undefined ? undefined : pages.get(key);
      if (kept && !('body' in kept)) return kept;
      const release = await admit(plan, keyId, request);
      request.holdUntilAnswered(release);
      try {
        const answer = await heldAnswer(await series.answerSeries(plan));
        if (key !== undefined) pages.set(key, answer, ratesOf(plan) * BYTES_PER_RATE);
        return answer;
      } catch (error) {
        release();
        throw error;
      }
    },
    revisionTag() {
      current();
      return rates.revision?.() ?? `${rates.latest()?.date ?? ''}#${changes}`;
    },
    keepsUpTo: pages.largestKept,
    collectsUpTo: 2 * pages.largestKept,
    collect(bytes) {
      if (bytes > 0 && collecting + bytes > 2 * pages.largestKept) return false;
      collecting += bytes;
      return true;
    },
    slots,
  };
}

/**
 * Whether the export cache keeps the page: an ECB page once complete (the ECB's revision empties the
 * cache), a page of another source always, under the revision of that source's publications it was
 * planned from (pageKey), which a new publication or a correction replaces.
 */
export function isKept(plan: SeriesPlan): boolean {
  return plan.complete || plan.sourceRevision !== undefined;
}

/** Everything a kept page depends on besides its media type and the ECB's revision (the cache's own). */
export function pageKey(plan: SeriesPlan): unknown[] {
  const key: unknown[] = [
    plan.start,
    plan.end,
    plan.base,
    plan.group,
    plan.asked ?? null,
    plan.nextCursor,
    plan.decimals ?? null,
    plan.rounding,
  ];
  // A source other than the ECB joins the key with the revision of its publications; an ECB page's key is as it was.
  if (plan.source !== undefined) key.push(plan.source, plan.sourceRevision ?? null);
  return key;
}

/** A page with its entries computed once, a chunk at a time (yielding between chunks), and held: it may be answered many times. */
async function heldAnswer(answer: SeriesAnswer): Promise<SeriesAnswer> {
  const entries: SeriesEntry[] = [];
  for await (const chunk of answer.chunks(CHUNK_BUDGET_MS)) for (const entry of chunk) entries.push(entry);
  return {
    ...answer,
    entries: function* () {
      yield* entries;
    },
    chunks: async function* () {
      yield entries;
    },
  };
}
