import { LINK_PARAMS } from '../../domain/signed-links';
import { FORMAT_PARAM, LINK_FORMATS, SERIES_LINKS_PATH } from '../../services/series-links';

type Json = Record<string, unknown>;

const signedOnly = 'Part of the link, signed with the other parameters (a link is used exactly as made):';

/** The parameters a signed link adds to the series export. */
const LINK_PARAMETERS: readonly Json[] = [
  {
    name: FORMAT_PARAM,
    in: 'query',
    required: true,
    description: `${signedOnly} the media type the link answers in, whatever Accept says.`,
    schema: { type: 'string', enum: Object.keys(LINK_FORMATS) },
  },
  {
    name: LINK_PARAMS.keyId,
    in: 'query',
    required: true,
    description: `${signedOnly} the id of the key that made the link (its plan and rate limit apply).`,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  },
  {
    name: LINK_PARAMS.expires,
    in: 'query',
    required: true,
    description: `${signedOnly} when the link stops working, in Unix seconds.`,
    schema: { type: 'string', pattern: '^\\d{1,12}$' },
  },
  {
    name: LINK_PARAMS.signature,
    in: 'query',
    required: true,
    description: `${signedOnly} the base64url HMAC-SHA256 of the others.`,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
  },
];

/** The operation of a signed link's route: the export's parameters and the link's own, and what it answers. */
export function withSignedLinks(operation: Json): Json {
  return {
    ...operation,
    description: `The URL a signed link made with POST ${SERIES_LINKS_PATH} (or GraphQL rateSeriesLink) gives, fetched exactly as made with no Authorization header: the export the key that made it would get, in the link's format. 403 LINK_INVALID when any parameter of the link was changed, added or removed, 403 LINK_EXPIRED past its expiry, 401 when its key was revoked or has ended, 400 with an Authorization header too. Its parameters are the link's: a client does not compose them.`,
    // A link reaches the newest publication or ends where it was made to: it never takes a cursor.
    parameters: [...((operation['parameters'] as Json[] | undefined) ?? []).filter((p) => p['name'] !== 'cursor'), ...LINK_PARAMETERS],
  };
}
