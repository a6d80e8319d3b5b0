/**
 * Request targets that WHATWG URL parsing (what Yoga does to every request) leaves as they are, so
 * that the node:http front and the edge may read their path without a URL object.
 */
/** Characters a path may hold unchanged by URL parsing (RFC 3986 pchar and `/`; `.` and `%` are checked apart). */
const PLAIN = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~!$&'()*+,;=:@/") PLAIN[c.charCodeAt(0)] = 1;
const DOT = 0x2e;
const PERCENT = 0x25;
const QUESTION = 0x3f;
const HASH = 0x23;
const SLASH = 0x2f;
/** A `.` or `..` segment, in any spelling URL parsing takes for one. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** Where the pathname of a target that URL parsing leaves as it is ends (at `?`, `#` or the end); -1 for any other target. */
function plainPathEnd(url: string): number {
  if (url.charCodeAt(0) !== SLASH || url.charCodeAt(1) === SLASH) return -1;
  let dots = false;
  let i = 1;
  for (; i < url.length; i += 1) {
    const c = url.charCodeAt(i);
    if (c === QUESTION || c === HASH) break;
    if (c === DOT || c === PERCENT) dots = true;
    else if (c >= 128 || PLAIN[c] !== 1) return -1;
  }
  if (dots && DOT_SEGMENT.test(url.slice(0, i))) return -1;
  return i;
}

/**
 * The pathname and query (without `?`) WHATWG URL parsing gives the request target (against
 * http://localhost); undefined if it does not parse. An ordinary origin-form target
 * (`/v1/units/meter?x=1`) is cut at `?` without a URL object per request. Anything URL parsing
 * would change (dot segments, `%2e`, `\\`, `//` at the start, characters it percent-encodes or
 * strips, a fragment, absolute-form, `*`) goes through `new URL()`.
 */
export function targetParts(url: string): { pathname: string; query: string } | undefined {
  const end = plainPathEnd(url);
  if (end >= 0 && (end === url.length || url.charCodeAt(end) === QUESTION) && !url.includes('#', end))
    return { pathname: url.slice(0, end), query: url.slice(end + 1) };
  try {
    const parsed = new URL(url, 'http://localhost');
    return { pathname: parsed.pathname, query: parsed.search.slice(1) };
  } catch {
    return undefined;
  }
}

/** The request target's pathname (targetParts), '' if it does not parse; an ordinary target's without a new string when it has no query. */
export function pathOf(url = '/'): string {
  const end = plainPathEnd(url);
  if (end >= 0) return end === url.length ? url : url.slice(0, end);
  return targetParts(url)?.pathname ?? '';
}

/** A request header's value as one text (node:http gives a list for some repeated headers), or null when absent. */
export function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
