import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors';
import { failureOf, restErrorResponse } from '../../http/answer/errors';
import { assetResponse, CompressedBodies, type StaticAsset } from '../../http/graphiql/static-asset';
import { requestContextOf } from '../../http/front/request-context';
import { isFrontDoorPath } from '../../http/routes';
import { etagMatches, strongEtag } from '../../http/answer/shared-resource';
import { csp, HTML_CSP } from '../../http/front/security-headers';
import { FRONT_ASSETS_PATH, frontAssets, referenceAssets, type ReferenceAssets } from './assets';
import { frontIndex, homePage, referencePage, type FrontLinks } from './views';

/**
 * The reference's policy: the page policy plus what Redoc needs to run: inline styles (its
 * styled-components insert <style> elements), data: images (its icons are inline SVG URIs) and
 * blob: workers (its search index runs in a worker made from a blob). Scripts stay same-origin
 * files, with no inline script and no eval; it connects only to this origin (the OpenAPI document).
 */
export const REFERENCE_CSP = csp({ ...HTML_CSP, 'style-src': "'self' 'unsafe-inline'", 'img-src': "'self' data:", 'worker-src': 'blob:' });
/** The home page's: the page policy itself. */
export const HOME_CSP = csp(HTML_CSP);

export interface FrontDoorOptions {
  /** GRAPHIQL: the home page links to GraphiQL only when it is served. */
  graphiql: boolean;
  /** Where the OpenAPI document is served (the reference renders it). */
  openApiPath: string;
  /** COMPRESSION: off sends the assets as they are; absent is on. */
  compression?: boolean;
}

export type FrontDoor = (request: Request) => Promise<Response>;

const asset = (a: StaticAsset) => `${FRONT_ASSETS_PATH}/${a.name}`;

/**
 * `/`: the home page for a client that asks for HTML, the JSON index (`{"data": …}`) for any other;
 * `/docs`: the API reference (Redoc rendering /openapi.json); their hashed assets. Every answer is
 * the same bytes for everyone: GET and HEAD only, revalidated by ETag, and no rate limit spent.
 */
export function createFrontDoor(options: FrontDoorOptions): FrontDoor {
  const own = frontAssets();
  const links: FrontLinks = { graphiql: options.graphiql, stylesheet: asset(own.stylesheet), favicon: asset(own.favicon) };
  const index = frontIndex(links);
  let reference: Promise<ReferenceAssets> | undefined;
  const referenceFiles = () => {
    reference ??= referenceAssets(options.openApiPath).catch((error: unknown) => {
      reference = undefined;
      throw error;
    });
    return reference;
  };
  const compressed = options.compression === false ? undefined : new CompressedBodies();

  return async (request) => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; use GET, HEAD.`, { allow: ['GET', 'HEAD'] });
    }
    if (path.startsWith(`${FRONT_ASSETS_PATH}/`)) {
      const name = path.slice(FRONT_ASSETS_PATH.length + 1);
      const files = [
        own.stylesheet,
        own.favicon,
        ...(name.startsWith('redoc.') || name.startsWith('reference.') ? Object.values(await referenceFiles()) : []),
      ];
      const found = files.find((f) => f.name === name);
      if (!found) throw new ApiError('NOT_FOUND', `There is no file ${path}. The API reference is GET /docs.`);
      return assetResponse(request, found, compressed);
    }
    if (url.search !== '') throw new ApiError('INVALID_REQUEST', `${path} takes no query parameters.`);
    if (path === '/docs') {
      const files = await referenceFiles();
      return document(request, referencePage(links, [asset(files.redoc), asset(files.boot)]), 'text/html; charset=utf-8', {
        policy: REFERENCE_CSP,
      });
    }
    // One URL, two representations: caches keep them apart by Accept.
    return prefersHtml(request)
      ? document(request, homePage(links, url.origin), 'text/html; charset=utf-8', { policy: HOME_CSP, vary: 'Accept' })
      : document(request, index, 'application/json; charset=utf-8', { vary: 'Accept' });
  };
}

/** A browser asks for text/html by name; API clients send application/json, a wildcard, or nothing. */
function prefersHtml(request: Request): boolean {
  return /(^|,)\s*text\/html\s*(;|,|$)/i.test(request.headers.get('accept') ?? '');
}

/** A page or the index: revalidated on each use (no-cache, strong ETag, 304). */
function document(request: Request, body: string, contentType: string, extra: { policy?: string; vary?: string }): Response {
  const etag = strongEtag(body);
  const headers: Record<string, string> = { 'cache-control': 'no-cache', etag };
  if (extra.vary) headers['vary'] = extra.vary;
  if (extra.policy) headers['content-security-policy'] = extra.policy;
  if (etagMatches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
  headers['content-type'] = contentType;
  headers['content-length'] = String(Buffer.byteLength(body));
  return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
}

/** The front door inside Yoga: its paths answered before any other plugin's, errors in the contract's JSON shape. */
export function useFrontDoor(options: FrontDoorOptions & { log: Logger }): Plugin {
  const serve = createFrontDoor(options);
  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      if (!isFrontDoorPath(url.pathname)) return;
      try {
        endResponse(await serve(request));
      } catch (error) {
        const context = requestContextOf(serverContext);
        endResponse(restErrorResponse(failureOf(error, context, options.log), context.requestId));
      }
    },
  };
}
