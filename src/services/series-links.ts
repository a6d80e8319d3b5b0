import { ApiError } from '../domain/errors';
import { keyEnvFor } from '../domain/keys';
import type { SecretBox } from '../domain/secret-box';
import { carriesLink, linkEnd, openSignedQuery, signedQuery } from '../domain/signed-links';
import type { AccountStore } from './account-store';
import { invalidKey, principalOf, type KeyWording, type Principal } from './auth';
import type { RateSeries, SeriesQuery } from './currency/series';

/**
 * The export a series link opens (what its signature names), the route that makes links, and the
 * route a link is fetched at (its own operation, apart from the keyed export's).
 */
export const SERIES_EXPORT_PATH = '/v1/currency/rates/series';
export const SERIES_LINKS_PATH = '/v1/currency/rates/series/links';
export const SIGNED_EXPORT_PATH = '/v1/currency/rates/series/signed';

/** The media types a link may fix, by the name its `format` parameter gives them (a spreadsheet sends no Accept). */
export const LINK_FORMATS = { csv: 'text/csv', ndjson: 'application/x-ndjson' } as const;
export type LinkFormat = keyof typeof LINK_FORMATS;
export const FORMAT_PARAM = 'format';

/** The series parameters of a link (rateSeries' arguments but `cursor`), its format and its lifetime. */
export interface SeriesLinkRequest {
  start: string;
  end?: string | null | undefined;
  base?: string | null | undefined;
  symbols?: readonly string[] | null | undefined;
  group?: string | null | undefined;
  decimals?: number | null | undefined;
  rounding?: string | null | undefined;
  /** The source whose series the link serves (absent: the ECB). */
  source?: string | null | undefined;
  format?: LinkFormat | null | undefined;
  /** Seconds the link works for. */
  expiresIn?: number | null | undefined;
}

export interface SeriesLink {
  /**
   * The link's URL: absolute on PUBLIC_ORIGIN when set, else on the request's own origin when it
   * was reached at a loopback name with no proxy in front, else the path and query alone. A GET
   * of it needs no Authorization header.
   */
  url: string;
  /** ISO 8601 UTC: the link's end (never after the key's). */
  expiresAt: string;
  format: LinkFormat;
  /** The id of the key that made it (the key itself is never in a link). */
  keyId: string;
}

/** A link whose signature held, opened for the export. */
export interface OpenedSeriesLink {
  /** The export's own query parameters (the link's and `format` taken out), as a query string. */
  query: string;
  mediaType: (typeof LINK_FORMATS)[LinkFormat];
  /** The key that made it, read from the store now: UNAUTHORIZED when revoked or unknown, KEY_EXPIRED past its end. */
  principal(): Promise<Principal>;
}

export interface SeriesLinks {
  /**
   * A link to the export these parameters ask for, made by this key: checked as the export would
   * check them (plan, currencies, range). `host`: the request's Host header, which the URL is built
   * on only when PUBLIC_ORIGIN is not set and it names the loopback interface.
   */
  make(request: SeriesLinkRequest, principal: Principal, host?: string | null): SeriesLink;
  /** Whether a query carries a link's parameters (and so is judged as a link). */
  carriesLink(params: URLSearchParams): boolean;
  /** LINK_INVALID or LINK_EXPIRED unless the query is a live link made by this server (or one sharing its secret). */
  open(params: URLSearchParams): OpenedSeriesLink;
}

export interface SeriesLinksOptions {
  /** The box of WEBHOOK_SECRET_KEY: links are signed with a key derived from it. */
  secrets: () => SecretBox;
  store: Pick<AccountStore, 'findKeyById' | 'findAccountById'>;
  series: Pick<RateSeries, 'planSeries'>;
  apiEnv: 'development' | 'production';
  clock: () => Date;
  /** A link's key was used (its last use, as for a keyed request). */
  onUse?: (keyId: string) => void;
  /** PUBLIC_ORIGIN (`https://api.example`): the origin every link is made on. */
  publicOrigin?: string | undefined;
  /** Whether a request's own loopback Host may name the link's origin (no TRUST_PROXY: nothing rewrites Host in front of the server). */
  trustsLoopbackHost?: boolean;
}

/** How a refusal names the key a link was made with. */
const LINK_KEY: KeyWording = { subject: 'The API key this link was made with', remedy: ': make a new link with a current key.' };

/** The HKDF label of the links' signing key: distinct from every other use of the secret. */
const SIGNING_LABEL = 'series links v1';

/**
 * Signed links to series exports (src/domain/signed-links.ts): made with a key, used without one.
 * Nothing is stored: the link carries its terms, and any instance configured with the same
 * WEBHOOK_SECRET_KEY derives the same signing key. The key a link names is read from the store at
 * each use, so its revocation, rotation or end stops its links at once, on every instance.
 */
export function createSeriesLinks(options: SeriesLinksOptions): SeriesLinks {
  const { secrets, store, series, apiEnv, clock, onUse } = options;
  const originOf = linkOrigin(options.publicOrigin, options.trustsLoopbackHost ?? false);
  let signingKey: Buffer | undefined;
  const key = (): Buffer => (signingKey ??= derivedKey(secrets));

  const linkKeyOf = async (keyId: string): Promise<Principal> => {
    const record = await store.findKeyById(keyId);
    const account =
      record && record.revokedAt === null && record.env === keyEnvFor(apiEnv) ? await store.findAccountById(record.accountId) : undefined;
    if (!record || !account) throw invalidKey(`${LINK_KEY.subject} is unknown or has been revoked${LINK_KEY.remedy}`);
    const principal = principalOf({ key: record, account }, clock(), LINK_KEY);
    onUse?.(keyId);
    return principal;
  };

  return {
    make(request, principal, host) {
      const format = request.format ?? 'csv';
      const params = seriesParams(request);
      // The export's own checks (plan, range, currencies), so that a link is never dead when made.
      series.planSeries({ ...(params as SeriesQuery), format: LINK_FORMATS[format] }, principal.account.plan);
      const expires = linkEnd(request.expiresIn, clock(), principal.expiresAt);
      // The signature names the export the link opens, not the path it is fetched at.
      const query = signedQuery(key(), {
        path: SERIES_EXPORT_PATH,
        params: { ...params, [FORMAT_PARAM]: format },
        keyId: principal.keyId,
        expires,
      });
      return {
        url: `${originOf(host)}${SIGNED_EXPORT_PATH}?${query}`,
        expiresAt: new Date(expires * 1000).toISOString(),
        format,
        keyId: principal.keyId,
      };
    },
    carriesLink,
    open(params) {
      const opened = openSignedQuery(key(), SERIES_EXPORT_PATH, params, clock());
      const format = opened.params.find(([name]) => name === FORMAT_PARAM)?.[1];
      if (!isLinkFormat(format)) {
        throw new ApiError('LINK_INVALID', `A series link names its format (${FORMAT_PARAM}=csv or ndjson); this one does not.`, {
          param: FORMAT_PARAM,
        });
      }
      const query = new URLSearchParams(opened.params.filter(([name]) => name !== FORMAT_PARAM)).toString();
      return { query, mediaType: LINK_FORMATS[format], principal: () => linkKeyOf(opened.keyId) };
    },
  };
}

/** A Host header that names the loopback interface: `localhost`, `127.x.x.x` or `[::1]`, with a port or not. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;

/** The origin a link's URL starts with: PUBLIC_ORIGIN, else a trusted loopback Host's own, else none (a path). */
function linkOrigin(publicOrigin: string | undefined, trustsLoopbackHost: boolean): (host: string | null | undefined) => string {
  if (publicOrigin !== undefined) return () => publicOrigin;
  return (host) => (trustsLoopbackHost && host && LOOPBACK_HOST.test(host) ? `http://${host.toLowerCase()}` : '');
}

function isLinkFormat(name: string | undefined): name is LinkFormat {
  return name !== undefined && Object.hasOwn(LINK_FORMATS, name);
}

/** The signing key; without WEBHOOK_SECRET_KEY in production, a 503 that names the variable. */
function derivedKey(secrets: () => SecretBox): Buffer {
  try {
    return secrets().derive(SIGNING_LABEL);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw new ApiError(
      'SERVICE_UNAVAILABLE',
      'Signed links are not available: WEBHOOK_SECRET_KEY, which keys their signatures, is not configured (required with API_ENV=production).',
      {
        retryAfterSeconds: 3600,
      },
    );
  }
}

/** The series parameters as the export's query takes them (a comma list of symbols, digits for decimals). */
function seriesParams(request: SeriesLinkRequest): Record<string, string> {
  const params: Record<string, string> = { start: request.start };
  const text = { end: request.end, base: request.base, group: request.group, rounding: request.rounding, source: request.source };
  for (const [name, value] of Object.entries(text)) if (value !== null && value !== undefined) params[name] = value;
  if (request.symbols !== null && request.symbols !== undefined) params['symbols'] = request.symbols.join(',');
  if (request.decimals !== null && request.decimals !== undefined) params['decimals'] = String(request.decimals);
  return params;
}
