import { LINK_PARAMS } from '../../domain/signed-links';
import { FORMAT_PARAM, LINK_FORMATS, SERIES_LINKS_PATH } from '../../services/series-links';

type Json = Record<string, unknown>;

/** The security scheme of a signed link: its signature, in the query (the key is never there). */
export const SIGNED_LINK_SCHEME: Json = {
  type: 'apiKey',
  in: 'query',
  name: LINK_PARAMS.signature,
  description: `A signed link made with POST ${SERIES_LINKS_PATH}: the series export's URL with ${FORMAT_PARAM}, ${LINK_PARAMS.keyId}, ${LINK_PARAMS.expires} and ${LINK_PARAMS.signature}, used as made, with no Authorization header. Not an API key: it opens that one export until it expires, while the key that made it is valid.`,
};

const signedOnly = 'Signed links only, signed with the other parameters (a link is used exactly as made):';

/** The parameters a signed link adds to the series export. */
const LINK_PARAMETERS: readonly Json[] = [
  {
    name: FORMAT_PARAM,
    in: 'query',
    required: false,
    description: `${signedOnly} the media type the link answers in, whatever Accept says.`,
    schema: { type: 'string', enum: Object.keys(LINK_FORMATS) },
  },
  {
    name: LINK_PARAMS.keyId,
    in: 'query',
    required: false,
    description: `${signedOnly} the id of the key that made the link (its plan and rate limit apply).`,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
  },
  {
    name: LINK_PARAMS.expires,
    in: 'query',
    required: false,
    description: `${signedOnly} when the link stops working, in Unix seconds.`,
    schema: { type: 'string', pattern: '^\\d{1,12}$' },
  },
  {
    name: LINK_PARAMS.signature,
    in: 'query',
    required: false,
    description: `${signedOnly} the base64url HMAC-SHA256 of the others.`,
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
  },
];

/** The series export's operation, also opened by a signed link: its parameters, its second way in, and what it answers then. */
export function withSignedLinks(operation: Json): Json {
  return {
    ...operation,
    description: `${operation['description'] as string} Also opened without a key by a signed link (POST ${SERIES_LINKS_PATH}): the export the key that made it would get, in the link's format; 403 LINK_INVALID when any parameter of the link was changed, added or removed, 403 LINK_EXPIRED past its expiry, 401 when its key was revoked or has ended, 400 with an Authorization header too.`,
    parameters: [...((operation['parameters'] as Json[] | undefined) ?? []), ...LINK_PARAMETERS],
  };
}
