import { QUERY_POLICIES } from '../graphql/policies';
import { SERIES_EXPORT_PATH, SERIES_LINKS_PATH, SIGNED_EXPORT_PATH } from '../services/series-links';

/**
 * THE route table. Every REST route is declared here once; SOFA's routes, the 404/405 allowlist,
 * the OpenAPI post-processing, CORS and Cache-Control are all derived from it. A route's access is
 * its field's, declared with the field (src/graphql/field-policy.ts).
 */
export type Access = 'public' | 'key';

export interface RestRoute {
  readonly method: 'GET' | 'POST';
  /** Path with `:name` segments (the specification's names); each fills the GraphQL argument of that name, or the one `pathArgs` names. */
  readonly path: string;
  /** Path parameter → GraphQL argument, where the two names differ (`:unit` fills `unit(id:)`). */
  readonly pathArgs?: Readonly<Record<string, string>>;
  /** The Query field that serves it; undefined for routes served outside GraphQL (the OpenAPI document). */
  readonly field?: string;
  /** Its OpenAPI operationId where a field serves more than one route (the field's name by default, on its first row). */
  readonly operationId?: string;
  /** Public, or keyed: the policy of `field` (the route and the field cannot differ); declared here only for a route without a field. */
  readonly access: Access;
  readonly summary: string;
  readonly tag: 'Units' | 'Conversion' | 'Currency' | 'Service';
  /** Largest accepted body, in bytes (POST routes). */
  readonly bodyLimit?: number;
  /**
   * Cache-Control of a successful answer: `latest-rates` lasts until the next ECB publication;
   * `complete-answer` (keyed answers whose `complete` member says they can no longer change):
   * `private, max-age=86400` with a strong ETag and 304 when complete, `no-store` otherwise.
   */
  readonly cache: 'static' | 'no-store' | 'latest-rates' | 'complete-answer';
  /**
   * Readable by a page of any origin: `Access-Control-Allow-Origin: *` (never with credentials) on
   * every answer and a CORS preflight. Every public route is, and no keyed one: `Authorization` is
   * never an allowed cross-origin header, so a key stays on the server side of a browser page.
   */
  readonly shared: boolean;
  /** A strong ETag of the answer's exact bytes, and 304 Not Modified on a matching If-None-Match (RFC 9110 13.1). */
  readonly etag?: boolean;
  /** The answer depends on the units catalogue alone: serialised once per resource, its bytes and ETag kept. */
  readonly prebuilt?: boolean;
  /**
   * Media types the answer is also served in, besides JSON (the default), chosen by the request's
   * Accept or its `format` parameter (answer-formats.ts renders them from the JSON answer, the same
   * way in both executions). The route's operation describes JSON: each other format is described
   * by a route of its own (`format`), so that generated clients type and parse one media type per
   * operation.
   */
  readonly formats?: readonly ExportFormat[];
  /** The one media type the route answers in, whatever Accept says (the path names it: `series.csv`). */
  readonly format?: ExportFormat;
  /**
   * Opened by a signed link (src/services/series-links.ts) instead of an Authorization header: the
   * link's parameters are required, its key is the request's key, the media type is the one it
   * names (one of `formats`), and its operation has no security scheme.
   */
  readonly signedLink?: boolean;
  /** Why query parameters are refused here, when the route takes none. */
  readonly queryHint?: string;
}

/** The media types an export is offered in besides JSON. */
export type ExportFormat = 'text/csv' | 'application/x-ndjson';

const KIB = 1024;
export const DEFAULT_BODY_LIMIT = 64 * KIB;

/** A row of the table as written: routes backed by a field take their access from it. */
type RouteRow = Omit<RestRoute, 'access' | 'shared'> & { readonly access?: Access };

const ROWS: readonly RouteRow[] = [
  {
    method: 'GET',
    path: '/v1/categories',
    field: 'categories',
    tag: 'Units',
    cache: 'static',
    etag: true,
    prebuilt: true,
    summary: 'List the 15 measurement categories',
  },
  {
    method: 'GET',
    path: '/v1/categories/:category',
    pathArgs: { category: 'id' },
    field: 'category',
    tag: 'Units',
    cache: 'static',
    etag: true,
    prebuilt: true,
    summary: 'Look up one category with its units',
  },
  {
    method: 'GET',
    path: '/v1/units',
    field: 'units',
    tag: 'Units',
    cache: 'static',
    etag: true,
    prebuilt: true,
    summary: 'List the units, optionally of one category',
  },
  {
    method: 'GET',
    path: '/v1/units/:unit',
    pathArgs: { unit: 'id' },
    field: 'unit',
    tag: 'Units',
    cache: 'static',
    etag: true,
    prebuilt: true,
    summary: 'Look up one unit by id, symbol or alias',
  },
  {
    method: 'GET',
    path: '/v1/convert',
    field: 'convert',
    tag: 'Conversion',
    cache: 'no-store',
    summary: 'Convert a value between units, currencies or unit expressions',
  },
  {
    method: 'POST',
    path: '/v1/convert',
    field: 'convertPost',
    tag: 'Conversion',
    cache: 'no-store',
    bodyLimit: DEFAULT_BODY_LIMIT,
    summary: 'Convert a value between units, currencies or unit expressions (JSON body)',
  },
  {
    method: 'POST',
    path: '/v1/batch',
    field: 'batch',
    tag: 'Conversion',
    cache: 'no-store',
    bodyLimit: 1024 * KIB,
    summary: 'Convert up to 1000 values in one call',
  },
  {
    method: 'POST',
    path: '/v1/currency/convert',
    field: 'convertCurrency',
    tag: 'Currency',
    cache: 'no-store',
    bodyLimit: DEFAULT_BODY_LIMIT,
    summary: "Convert between currencies at one official publisher's figures (the ECB's when it quotes both, or source)",
  },
  {
    method: 'GET',
    path: '/v1/currency/rates',
    field: 'rates',
    tag: 'Currency',
    cache: 'no-store',
    summary:
      "Reference rates of a day (the ECB's, or source's) against any base, optionally times an amount (history needs the Developer plan)",
  },
  {
    method: 'GET',
    path: '/v1/currency/rates/latest',
    field: 'latestRates',
    tag: 'Currency',
    cache: 'latest-rates',
    etag: true,
    queryHint: 'GET /v1/currency/rates/latest takes no query parameters; for a date or symbols use GET /v1/currency/rates with an API key.',
    summary: 'The latest ECB reference rates (public, cacheable, any origin)',
  },
  {
    method: 'GET',
    path: SERIES_EXPORT_PATH,
    field: 'rateSeries',
    tag: 'Currency',
    cache: 'complete-answer',
    formats: ['text/csv', 'application/x-ndjson'],
    summary:
      "A time series of ECB reference rates (or of another source's, with source), per publication or as exact weekly, monthly or yearly means (Developer plan; JSON, or CSV and NDJSON by Accept or format)",
  },
  {
    method: 'GET',
    path: `${SERIES_EXPORT_PATH}.csv`,
    field: 'rateSeries',
    operationId: 'rateSeriesCsv',
    tag: 'Currency',
    cache: 'complete-answer',
    format: 'text/csv',
    summary: 'The same series as CSV, streamed over any range (Developer plan)',
  },
  {
    method: 'GET',
    path: `${SERIES_EXPORT_PATH}.ndjson`,
    field: 'rateSeries',
    operationId: 'rateSeriesNdjson',
    tag: 'Currency',
    cache: 'complete-answer',
    format: 'application/x-ndjson',
    summary: 'The same series as NDJSON, one entry a line, streamed over any range (Developer plan)',
  },
  {
    method: 'GET',
    path: SIGNED_EXPORT_PATH,
    field: 'rateSeries',
    operationId: 'rateSeriesBySignedLink',
    tag: 'Currency',
    cache: 'complete-answer',
    formats: ['text/csv', 'application/x-ndjson'],
    signedLink: true,
    summary: 'A series export opened by a signed link, with no Authorization header (CSV or NDJSON, as the link names)',
  },
  {
    method: 'POST',
    path: SERIES_LINKS_PATH,
    field: 'rateSeriesLink',
    tag: 'Currency',
    cache: 'no-store',
    bodyLimit: DEFAULT_BODY_LIMIT,
    summary: 'A signed link to a series export (CSV or NDJSON) that works without a key until it expires (Developer plan)',
  },
  // The registry's dates move with each publication: cached as the latest rates are.
  {
    method: 'GET',
    path: '/v1/currencies',
    field: 'currencies',
    tag: 'Currency',
    cache: 'latest-rates',
    etag: true,
    summary: 'Every currency a served source has quoted, with its sources, dates and successor',
  },
  {
    method: 'GET',
    path: '/v1/currencies/:code',
    field: 'currency',
    tag: 'Currency',
    cache: 'latest-rates',
    etag: true,
    summary: 'One currency of the registry',
  },
  // Freshness moves with every fetch: never cached.
  {
    method: 'GET',
    path: '/v1/sources',
    field: 'sources',
    tag: 'Currency',
    cache: 'no-store',
    summary: 'Every rate source served, with its publisher, schedule, terms link and freshness',
  },
  {
    method: 'GET',
    path: '/v1/usage',
    field: 'usage',
    tag: 'Service',
    cache: 'no-store',
    summary: "The key's account: this month's quota and its last 31 UTC days (uses no quota)",
  },
  {
    method: 'GET',
    path: '/v1/health',
    field: 'health',
    tag: 'Service',
    cache: 'no-store',
    summary: 'Health of the service and of its currency rates',
  },
  {
    method: 'GET',
    path: '/openapi.json',
    access: 'public',
    tag: 'Service',
    cache: 'static',
    etag: true,
    summary: 'This OpenAPI 3.1 document',
  },
];

export const ROUTES: readonly RestRoute[] = ROWS.map((row) => {
  const access = accessOf(row);
  return { ...row, access, shared: access === 'public' };
});

function accessOf(row: RouteRow): Access {
  if (row.field === undefined) {
    if (row.access === undefined) throw new TypeError(`${row.method} ${row.path} has no field: declare its access on the route.`);
    return row.access;
  }
  const declared = QUERY_POLICIES.get(row.field);
  if (declared === undefined)
    throw new TypeError(`${row.method} ${row.path} names Query.${row.field}, which has no policy (src/graphql/field-policy.ts).`);
  if (row.access !== undefined)
    throw new TypeError(`${row.method} ${row.path}: the access of a field's route is the field's; do not declare it again.`);
  return declared.access;
}

/** The Allow field of a path: its methods, HEAD wherever GET is, OPTIONS on shared (CORS) resources. */
export function allowedMethods(routes: readonly RestRoute[]): string {
  const methods = routes.map((r) => r.method as string);
  if (methods.includes('GET')) methods.push('HEAD');
  if (routes.some((r) => r.shared)) methods.push('OPTIONS');
  return methods.join(', ');
}

/** Cache-Control of a route's successful answers; `maxAge` is the latest-rates lifetime in seconds. */
export function cacheControl(route: RestRoute, latestMaxAge: () => number): string {
  if (route.cache === 'static') return 'public, max-age=3600';
  if (route.cache === 'latest-rates') return `public, max-age=${Math.max(0, Math.min(3600, Math.floor(latestMaxAge())))}`;
  return 'no-store';
}

export interface RouteMatch {
  /** Routes on this path, whatever their method. */
  readonly routes: readonly RestRoute[];
  readonly params: Record<string, string>;
}

interface CompiledPath {
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly routes: RestRoute[];
  /** Its metrics label, the template in OpenAPI form (`/v1/units/{unit}`), computed once. */
  readonly label: string;
  /** The path's literal start (up to its first `:` or `.`): no path without it can match `pattern`. */
  readonly prefix: string;
}

const compiled: CompiledPath[] = [];
for (const route of ROUTES) {
  const existing = compiled.find((c) => c.routes[0]!.path === route.path);
  if (existing) {
    existing.routes.push(route);
    continue;
  }
  const names: string[] = [];
  // A literal `.` (`series.csv`) matches itself only.
  const source = route.path.replace(/\./g, '\\.').replace(/:([a-z]+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  compiled.push({
    pattern: new RegExp(`^${source}$`),
    names,
    routes: [route],
    label: openApiPath(route.path),
    prefix: /^[^:.]*/.exec(route.path)![0],
  });
}

/** A path with `:name` segments in OpenAPI form (`/v1/units/{unit}`): a route's label in the metrics. */
export function openApiPath(path: string): string {
  return path.replace(/:([a-z]+)/g, '{$1}');
}

/** The routes at a path (for 404 vs 405), with its decoded path parameters. */
export function matchPath(pathname: string): RouteMatch | undefined {
  for (const entry of compiled) {
    const match = entry.pattern.exec(pathname);
    if (!match) continue;
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      params[name] = safeDecode(match[i + 1]!);
    });
    return { routes: entry.routes, params };
  }
  return undefined;
}

/**
 * A low-cardinality name for any request path (metrics): the route table's template in OpenAPI
 * form (`/v1/units/{unit}`), or "graphql", "account", "metrics", "other" — never the raw path.
 */
export function routeLabel(pathname: string): string {
  // Per request (every answer is counted): the labels of the table's own paths are looked up, any
  // other path is tested against the compiled patterns in order, with no decoding and no replace.
  const known = LABELS.get(pathname);
  if (known !== undefined) return known;
  for (const entry of compiled) {
    if (pathname.startsWith(entry.prefix) && entry.pattern.test(pathname)) return entry.label;
  }
  return labelOutsideTable(pathname);
}

/** The account pages: this path and every path under it. */
const ACCOUNT_PATH = '/account';
/** The Prometheus metrics, answered by the node:http server itself. */
export const METRICS_PATH = '/metrics';
/** The MCP endpoint (src/mcp), Streamable HTTP. */
export const MCP_PATH = '/mcp';

/**
 * The agents' OAuth paths (src/http/oauth): the authorization server's endpoints under /oauth/, its
 * RFC 8414 metadata, and the RFC 9728 metadata of the one protected resource, /mcp (at the
 * well-known path and at its path-suffixed form). They answer in OAuth's own formats (RFC 6749
 * errors), are described by that metadata rather than by the OpenAPI document of the REST routes,
 * and are served only when OAUTH_ISSUER is set (else 404 like any unknown path).
 */
export const OAUTH_PREFIX = '/oauth/';
export const PROTECTED_RESOURCE_PATHS: readonly string[] = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
];
export const AUTHORIZATION_SERVER_PATHS: readonly string[] = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
];

export function isOAuthPath(pathname: string): boolean {
  return pathname.startsWith(OAUTH_PREFIX) || PROTECTED_RESOURCE_PATHS.includes(pathname) || AUTHORIZATION_SERVER_PATHS.includes(pathname);
}

export function isAccountPath(pathname: string): boolean {
  return pathname === ACCOUNT_PATH || (pathname.startsWith(ACCOUNT_PATH) && pathname[ACCOUNT_PATH.length] === '/');
}

/** The front door's files (the reference's scripts, the pages' stylesheet and icon). */
export const FRONT_ASSETS_PATH = '/docs/assets';

/** The front door (src/pages/front): the home page `/`, the API reference `/docs` and their files. */
export function isFrontDoorPath(pathname: string): boolean {
  return pathname === '/' || pathname === '/docs' || pathname.startsWith(`${FRONT_ASSETS_PATH}/`);
}

function labelOutsideTable(pathname: string): string {
  if (pathname === '/graphql') return 'graphql';
  if (isAccountPath(pathname)) return 'account';
  if (isFrontDoorPath(pathname)) return pathname === '/' ? 'home' : 'docs';
  if (pathname === METRICS_PATH) return 'metrics';
  if (pathname === MCP_PATH) return 'mcp';
  if (isOAuthPath(pathname)) return 'oauth';
  return 'other';
}

/** The label of each path the table and the app spell out, found the slow way once. */
const LABELS = new Map<string, string>();
for (const pathname of [...ROUTES.map((r) => r.path), '/graphql', ACCOUNT_PATH, METRICS_PATH, MCP_PATH, '/', '/docs']) {
  const entry = compiled.find((c) => c.pattern.test(pathname));
  LABELS.set(pathname, entry ? entry.label : labelOutsideTable(pathname));
}

/** The path of a route with these parameters, percent-encoded: what matchPath decoded, written back. */
export function pathFor(route: RestRoute, params: Record<string, string>): string {
  return route.path.replace(/:([a-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** Path parameters keyed by the GraphQL argument each fills. */
export function argsOfPath(route: RestRoute, params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [route.pathArgs?.[name] ?? name, value]));
}

/** The path parameter a GraphQL argument came from (for an error's `param`), or the argument itself. */
export function pathParamOf(route: RestRoute, arg: string): string {
  return Object.entries(route.pathArgs ?? {}).find(([, a]) => a === arg)?.[0] ?? arg;
}

/** The route's path in SOFA's terms: each `:name` is the argument it fills. */
export function sofaPath(route: RestRoute): string {
  return route.path.replace(/:([a-z]+)/g, (_, name: string) => `:${route.pathArgs?.[name] ?? name}`);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The first row of a field: the one SOFA routes, whose operation the field's other rows are described from. */
export function fieldRoute(field: string): RestRoute {
  return ROUTES.find((route) => route.field === field)!;
}

/** The routes that each answer one of this route's other formats (`series.csv` for the series' text/csv). */
export function formatRoutes(route: RestRoute): readonly RestRoute[] {
  return ROUTES.filter((r) => r.field === route.field && r.format !== undefined && route.formats?.includes(r.format));
}

/** Whether the route's answer follows the request's Accept (a signed link names its media type instead). */
export function variesOnAccept(route: RestRoute): boolean {
  return route.formats !== undefined && !route.signedLink;
}

/** SOFA's `routes` option: field coordinate → method and path, for each field's first route. */
export function sofaRoutes(): Record<string, { method: 'GET' | 'POST'; path: string; tags: string[]; description: string }> {
  const rows = ROUTES.filter((route) => route.field !== undefined && fieldRoute(route.field) === route);
  return Object.fromEntries(
    rows.map((route) => [
      `Query.${route.field}`,
      { method: route.method, path: sofaPath(route).replace(/^\/v1/, ''), tags: [route.tag], description: route.summary },
    ]),
  );
}
