import { ApiError } from '../../domain/errors';
import { LINK_PARAMS } from '../../domain/signed-links';
import type { RequestContext } from '../../services/request-context';
import type { SeriesLinks } from '../../services/series-links';

/**
 * The authentication step of the series export when its query is a signed link
 * (src/services/series-links.ts): the link's signature and expiry checked (LINK_INVALID,
 * LINK_EXPIRED), the key it names made the request's key (checked against the store when the edge
 * authenticates, as a keyed request's is, so its plan and rate limit apply), and the media type
 * the link names made the Accept the export negotiates on. Answers the query left for the export's
 * inputs (the link's own parameters and `format` taken out) and that media type; undefined for a
 * query without a link's parameters.
 * The signature is never logged: the access log writes the path alone.
 */
export function admitSignedLink(query: string, context: RequestContext, links: SeriesLinks): { query: string; accept: string } | undefined {
  if (query === '') return undefined;
  const params = new URLSearchParams(query);
  if (!links.carriesLink(params)) return undefined;
  if (context.carriesKey) {
    throw new ApiError(
      'INVALID_REQUEST',
      "Send an API key or a signed link, not both: drop the Authorization header to use the link, or the link's keyId, expires and signature to use the key.",
      {
        param: LINK_PARAMS.signature,
      },
    );
  }
  const opened = links.open(params);
  context.authenticateWith(opened.principal);
  // The export negotiates its media type from Accept, which a spreadsheet's "from web" does not send.
  return { query: opened.query, accept: opened.mediaType };
}
