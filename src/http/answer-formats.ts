import { csvLines, ndjsonLines, type ExportHeader } from '../domain/currency/series-export';
import type { SeriesEntry } from '../domain/currency/series';
import type { SeriesGroup } from '../domain/currency/periods';
import type { ResponseParts } from './rest-response';
import { ROUTES, type RestRoute } from './routes';
import { etagMatches, strongEtag } from './shared-resource';

/**
 * Answers of routes that negotiate their media type (`formats`) or whose caching depends on the
 * answer (`cache: 'complete-answer'`). Both lanes hand it the same `{"data": ...}` text (SOFA's, or
 * the direct execution's identical serialisation) and the same request facts, so both write the same bytes
 * and headers: the alternative formats are rendered from the JSON answer, never from a second
 * resolution.
 */

export type MediaType = 'application/json' | NonNullable<RestRoute['formats']>[number];

/** The Content-Type written for each media type; CSV says it has a header row (RFC 4180, section 3). */
export const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  'application/json': 'application/json; charset=utf-8',
  'text/csv': 'text/csv; charset=utf-8; header=present',
  'application/x-ndjson': 'application/x-ndjson; charset=utf-8',
};

/** How long a complete (past) answer may be reused by the client's own cache before it revalidates. */
export const COMPLETE_MAX_AGE = 86_400;
export const COMPLETE_CACHE_CONTROL = `private, max-age=${COMPLETE_MAX_AGE}`;

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

/** The serialised answer of a series, as the JSON answer lists it. */
interface SeriesData {
  base: string;
  group: SeriesGroup;
  symbols: string[];
  entries: (Omit<SeriesEntry, 'partial'> & { partial: { code: string; publications: number }[] })[];
}

type Renderer = (data: unknown) => Iterable<string>;

const seriesHeader = (data: SeriesData): ExportHeader => ({ base: data.base, group: data.group, symbols: data.symbols });

/** Each field's renderer per alternative format: the field's JSON answer, as lines. */
const RENDERERS: Readonly<Record<string, Partial<Record<MediaType, Renderer>>>> = {
  rateSeries: {
    'text/csv': (data) => {
      const series = data as SeriesData;
      const entries = series.entries.map((e) => ({ ...e, partial: Object.fromEntries(e.partial.map((p) => [p.code, p.publications])) }));
      return csvLines(entries, seriesHeader(series));
    },
    // Each line is the JSON answer's entry, with the base: the same rows in the same shape.
    'application/x-ndjson': (data) => ndjsonLines((data as SeriesData).entries as unknown as SeriesEntry[], seriesHeader(data as SeriesData)),
  },
};

// The route table declares the formats; a format with no renderer is a mistake found at start.
for (const route of ROUTES) {
  for (const format of route.formats ?? []) {
    if (!route.field || !RENDERERS[route.field]?.[format]) throw new TypeError(`${route.method} ${route.path} offers ${format}, which nothing renders (src/http/answer-formats.ts).`);
  }
}

/** Whether a route's answers are written here rather than by restSuccessParts. */
export function negotiates(route: RestRoute): boolean {
  return route.formats !== undefined || route.cache === 'complete-answer';
}

/** What of the request decides the answer's form. */
export interface AnswerRequest {
  accept: string | null;
  ifNoneMatch: string | null;
  /** The query string, without `?` (for the next page's link). */
  query: string;
}

/**
 * The answer of a negotiating route from its `{"data": ...}` JSON text: in the negotiated media
 * type, with `Vary: Accept` where there is a choice, a `Link` to the next page where the answer has
 * a `nextCursor`, and for `complete-answer` routes a long private lifetime, a strong ETag of the
 * exact bytes and 304 once the answer is complete, `no-store` before.
 */
export function negotiatedParts(route: RestRoute, json: string, request: AnswerRequest): ResponseParts {
  const mediaType = route.formats ? negotiate(request.accept, ['application/json', ...route.formats]) : 'application/json';
  const data = (JSON.parse(json) as { data: Record<string, unknown> }).data;
  const body = mediaType === 'application/json' ? json : Buffer.from([...RENDERERS[route.field!]![mediaType]!(data)].join(''));
  const complete = route.cache === 'complete-answer' && data['complete'] === true;
  const headers: Record<string, string> = {
    'content-type': CONTENT_TYPES[mediaType],
    'cache-control': complete ? COMPLETE_CACHE_CONTROL : 'no-store',
    'content-length': String(Buffer.byteLength(body)),
  };
  if (route.formats) headers['vary'] = 'Accept';
  if (typeof data['nextCursor'] === 'string') headers['link'] = nextLink(route, request.query, data['nextCursor']);
  if (!complete) return { status: 200, headers, body };
  headers['etag'] = strongEtag(body);
  if (!etagMatches(request.ifNoneMatch, headers['etag'])) return { status: 200, headers, body };
  delete headers['content-type'];
  return { status: 304, headers, body: null };
}

/** The same query with `cursor` set to the next page's (RFC 8288 `rel="next"`), normalised the same way in both lanes. */
function nextLink(route: RestRoute, query: string, cursor: string): string {
  const params = new URLSearchParams(query);
  params.set('cursor', cursor);
  return `<${route.path}?${params.toString()}>; rel="next"`;
}
