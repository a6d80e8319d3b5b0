import { isStreamed, JSON_CONTENT_TYPE, type ResponseParts, type StreamedBody } from './answer-parts';
import { ROUTES, variesOnAccept, type ExportFormat, type RestRoute } from '../routes';
import { validatedParts } from './shared-resource';

/**
 * Answers of routes that negotiate their media type (`formats`) or whose caching depends on the
 * answer (`cache: 'complete-answer'`). Both executions hand it the same `{"data": ...}` text (SOFA's, or
 * the direct execution's identical serialisation) and the same request facts, so both write the same bytes
 * and headers: the alternative formats are rendered from the JSON answer, never from a second
 * resolution.
 */

export type MediaType = 'application/json' | ExportFormat;

/** The Content-Type written for each media type; CSV says it has a header row (RFC 4180, section 3). */
const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  'application/json': JSON_CONTENT_TYPE,
  'text/csv': 'text/csv; charset=utf-8; header=present',
  'application/x-ndjson': 'application/x-ndjson; charset=utf-8',
};

/** How long a complete (past) answer may be reused by the client's own cache before it revalidates. */
export const COMPLETE_CACHE_CONTROL = 'private, max-age=86400';

/** Accept ranges read per request: a longer header is judged on its first ones. */
const MAX_RANGES = 32;

/**
 * The media type to answer in (RFC 9110 12.5.1): the offered type with the highest quality whose
 * most specific matching range allows it, the server's order (JSON first) breaking ties. No Accept,
 * or one that nothing offered satisfies, gets JSON: the contract has no 406, and RFC 9110 lets a
 * server disregard Accept (as /graphql does).
 */
export function negotiate(accept: string | null, offered: readonly MediaType[]): MediaType {
  const fallback = offered[0] ?? 'application/json';
  if (accept === null || accept.trim() === '') return fallback;
  const ranges = accept
    .split(',', MAX_RANGES)
    .map((part) => {
      const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.map((p) => /^q=([01](?:\.\d{0,3})?)$/.exec(p)).find((m) => m !== null);
      return { range, q: q ? Number(q[1]) : 1 };
    })
    .filter((r) => /^[a-z0-9!#$&^_.+*-]+\/[a-z0-9!#$&^_.+*-]+$/.test(r.range));
  let best: MediaType | undefined;
  let bestQ = 0;
  for (const type of offered) {
    const q = qualityOf(type, ranges);
    if (q > bestQ) {
      best = type;
      bestQ = q;
    }
  }
  return best ?? fallback;
}

/** The quality the most specific range matching `type` gives it; 0 when none matches. */
function qualityOf(type: string, ranges: readonly { range: string; q: number }[]): number {
  const major = `${type.slice(0, type.indexOf('/'))}/*`;
  for (const candidate of [type, major, '*/*']) {
    const found = ranges.filter((r) => r.range === candidate);
    if (found.length > 0) return Math.max(...found.map((r) => r.q));
  }
  return 0;
}

/** The one field whose route is written as an export (series-export.ts). */
export const EXPORTED_FIELD = 'rateSeries';

/** Whether a route's answers are written by the series export rather than by restSuccessParts. */
export function negotiates(route: RestRoute): boolean {
  return route.formats !== undefined || route.format !== undefined || route.cache === 'complete-answer';
}

// The route table declares the formats; a route that offers them is written by the export, found at start.
for (const route of ROUTES) {
  if (negotiates(route) && route.field !== EXPORTED_FIELD)
    throw new TypeError(
      `${route.method} ${route.path} offers formats or caches complete answers, which only Query.${EXPORTED_FIELD}'s export writes (src/http/rest/series-export.ts).`,
    );
}

/** What an exported page says of itself: its range and base (its file name), whether it is complete, and the next page. */
interface ExportedPage {
  start: string;
  end: string;
  base: string;
  complete: boolean;
  nextCursor: string | null;
}

const FILE_EXTENSIONS: Readonly<Record<Exclude<MediaType, 'application/json'>, string>> = {
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
};

/** `ecb-rates-USD-2016-01-01-2025-12-31.csv`: what a saved export is called (only letters, digits and dashes). */
function exportFileName(page: Pick<ExportedPage, 'start' | 'end' | 'base'>, mediaType: Exclude<MediaType, 'application/json'>): string {
  return `ecb-rates-${page.base}-${page.start}-${page.end}.${FILE_EXTENSIONS[mediaType]}`;
}

/** What of the request decides the answer's form besides the media type. */
export interface AnswerRequest {
  ifNoneMatch: string | null;
  /** The query string, without `?` (for the next page's link). */
  query: string;
}

/** A page's body, whole or streamed, and its strong validator (none when the page may still change). */
interface WrittenPage {
  readonly body: Buffer | StreamedBody;
  readonly etag: string | undefined;
}

/**
 * The answer of a route that negotiates its media type (`formats`) and whose caching depends on
 * the answer (`cache: 'complete-answer'`): `Vary: Accept`, a `Link` to the next page where there is
 * one, a download's file name, and, once the page is complete, a long private lifetime, its strong
 * ETag and 304 on a match; `no-store` before. A whole body has its Content-Length; a streamed one
 * is sent chunked.
 */
export function exportParts(
  route: RestRoute,
  mediaType: MediaType,
  page: ExportedPage,
  written: WrittenPage,
  request: AnswerRequest,
): ResponseParts {
  const complete = route.cache === 'complete-answer' && page.complete && written.etag !== undefined;
  const headers: Record<string, string> = {
    'content-type': CONTENT_TYPES[mediaType],
    'cache-control': complete ? COMPLETE_CACHE_CONTROL : 'no-store',
  };
  if (!isStreamed(written.body)) headers['content-length'] = String(written.body.length);
  if (mediaType !== 'application/json') headers['content-disposition'] = `attachment; filename="${exportFileName(page, mediaType)}"`;
  if (variesOnAccept(route)) headers['vary'] = 'Accept';
  if (page.nextCursor !== null) headers['link'] = nextLink(route, request.query, page.nextCursor);
  if (!complete) return { status: 200, headers, body: written.body };
  return validatedParts(headers, written.body, written.etag!, request.ifNoneMatch);
}

/** The same query with `cursor` set to the next page's (RFC 8288 `rel="next"`), normalised the same way in both executions. */
function nextLink(route: RestRoute, query: string, cursor: string): string {
  const params = new URLSearchParams(query);
  params.set('cursor', cursor);
  return `<${route.path}?${params.toString()}>; rel="next"`;
}
