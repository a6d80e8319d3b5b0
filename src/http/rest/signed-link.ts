import { ApiError } from '../../domain/errors';
import { LINK_PARAMS } from '../../domain/signed-links';
import type { RequestContext } from '../../services/request-context';
import { SIGNED_EXPORT_PATH, type SeriesLinks } from '../../services/series-links';
import type { ResponseParts } from '../answer/answer-parts';

/**
 * The authentication step of the route a signed link is fetched at (src/services/series-links.ts):
 * the link's signature and expiry checked (LINK_INVALID, also when its parameters are missing;
 * LINK_EXPIRED), the key it names made the request's key (checked against the store when the edge
 * authenticates, as a keyed request's is, so its plan and rate limit apply), and the media type
 * the link names made the Accept the export negotiates on. Answers the query left for the export's
 * inputs (the link's own parameters and `format` taken out) and that media type.
 * The signature is never logged: the access log writes the path alone.
 */
export function admitSignedLink(query: string, context: RequestContext, links: SeriesLinks): { query: string; accept: string } {
  const params = new URLSearchParams(query);
  if (context.carriesKey) {
    const message = links.carriesLink(params)
      ? "Send an API key or a signed link, not both: drop the Authorization header to use the link, or use GET /v1/currency/rates/series with the key, without the link's keyId, expires and signature."
      : `${SIGNED_EXPORT_PATH} opens signed links, sent with no Authorization header; with an API key, use GET /v1/currency/rates/series (or its .csv and .ndjson forms).`;
    throw new ApiError('INVALID_REQUEST', message, { param: LINK_PARAMS.signature });
  }
  const opened = links.open(params);
  context.authenticateWith(opened.principal);
  // The export negotiates its media type from Accept, which a spreadsheet's "from web" does not send.
  return { query: opened.query, accept: opened.mediaType };
}

/**
 * A link's query on the keyed export's path (the path its signature names): 308 Permanent Redirect
 * to the same query on the links' route, which opens it as made, for every client that follows
 * redirects. The keyed route itself never takes a link as its credential. Undefined for a query
 * without a link's parameters.
 */
export function movedLink(query: string, links: SeriesLinks): ResponseParts | undefined {
  if (query === '' || !links.carriesLink(new URLSearchParams(query))) return undefined;
  const location = `${SIGNED_EXPORT_PATH}?${query}`;
  return {
    status: 308,
    headers: { location, 'cache-control': 'no-store', 'content-type': 'text/plain; charset=utf-8' },
    body: `Signed links are opened at ${SIGNED_EXPORT_PATH}: ${location}\n`,
  };
}
