import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { ApiError } from '../../domain/errors';
import { failureOf, restErrorResponse } from '../answer/errors';
import { requestContextOf } from '../front/request-context';
import { csp, HTML_CSP } from '../front/security-headers';
import { etagMatches, strongEtag } from '../answer/shared-resource';
import { ASSETS_PATH, buildGraphiQLBundle, type GraphiQLBundle, type GraphiQLOptions } from './bundle';
import { assetResponse, CompressedBodies } from './static-asset';

interface GraphiQLPluginOptions extends GraphiQLOptions {
  /** GRAPHIQL: off answers 404 for the page and its assets. */
  enabled: boolean;
  /** COMPRESSION: off sends the assets as they are; absent is on. */
  compression?: boolean;
  log: Logger;
}

/**
 * GraphiQL's policy: the page policy plus inline styles, which Monaco and GraphiQL inject at run
 * time, and data: images, which Monaco draws its themed squiggly underlines with. Scripts stay
 * same-origin files (no inline script, no eval); workers are same-origin files.
 */
const GRAPHIQL_CSP = csp({ ...HTML_CSP, 'style-src': "'self' 'unsafe-inline'", 'img-src': "'self' data:" });

/** A bundle and its page's ETag. */
interface Built {
  readonly bundle: GraphiQLBundle;
  readonly pageEtag: string;
}

/**
 * Built once per process, on the first GraphiQL request (the bundle is ~9 MB of text, loaded only
 * then): every app with the same options shares it. A failed build is forgotten, so the next
 * request tries again.
 */
let built: { key: string; bundle: Promise<Built> } | undefined;
function bundleFor(options: GraphiQLOptions): Promise<Built> {
  const key = JSON.stringify(options);
  if (built?.key !== key) {
    const bundle = buildGraphiQLBundle(options).then((b) => ({ bundle: b, pageEtag: strongEtag(b.page) }));
    const entry = { key, bundle };
    bundle.catch(() => {
      if (built === entry) built = undefined;
    });
    built = entry;
  }
  return built.bundle;
}

/** Compressed once per process too: asset names hold their hash, so one cache serves every app. */
const compressed = new CompressedBodies();

const wantsHtml = (request: Request) => /\btext\/html\b/i.test(request.headers.get('accept') ?? '');

/**
 * GraphiQL at GET /graphql (for a client that accepts text/html, as Yoga decides) and its hashed
 * assets under /graphql/assets/, inside the per-IP rate limit of public routes. The page is
 * revalidated (no-cache, ETag); the assets are immutable and sent brotli- or gzip-compressed.
 */
export function useGraphiQL(options: GraphiQLPluginOptions): Plugin {
  const encodings = options.compression === false ? undefined : compressed;
  const graphiql = { title: options.title, defaultQuery: options.defaultQuery, endpoint: options.endpoint };

  const page = (request: Request, { bundle, pageEtag }: Built): Response => {
    const headers: Record<string, string> = {
      'cache-control': 'no-cache',
      etag: pageEtag,
      vary: 'Accept',
      'content-security-policy': GRAPHIQL_CSP,
    };
    if (etagMatches(request.headers.get('if-none-match'), pageEtag)) return new Response(null, { status: 304, headers });
    const body = Buffer.from(bundle.page);
    // Start compressing the two large assets now: the browser asks for them next.
    for (const a of bundle.assets.values()) if (a.name.startsWith('graphiql.')) void encodings?.of(a);
    return new Response(request.method === 'HEAD' ? null : bundle.page, {
      headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) },
    });
  };

  const answer = async (request: Request, url: URL): Promise<Response | undefined> => {
    const isPage = url.pathname === '/graphql' && (request.method === 'GET' || request.method === 'HEAD') && wantsHtml(request);
    const isAsset = url.pathname.startsWith(`${ASSETS_PATH}/`);
    if (!isPage && !isAsset) return undefined;
    if (!options.enabled) {
      // GraphQL over GET still works without GraphiQL; only the page and its files are gone.
      if (isPage && url.searchParams.has('query')) return undefined;
      throw new ApiError('NOT_FOUND', 'GraphiQL is turned off on this server (GRAPHIQL=off). Send GraphQL requests to POST /graphql.');
    }
    // The page and its assets spend no rate limit: they are the same bytes for everyone, and a
    // caller exploring the API must not use up the requests its queries need.
    if (isPage) {
      return page(request, await bundleFor(graphiql));
    }
    const { bundle } = await bundleFor(graphiql);
    const found = bundle.assets.get(url.pathname.slice(ASSETS_PATH.length + 1));
    if (!found) throw new ApiError('NOT_FOUND', `There is no GraphiQL asset ${url.pathname}.`);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}; use GET, HEAD.`, {
        allow: ['GET', 'HEAD'],
      });
    }
    return assetResponse(request, found, encodings);
  };

  return {
    async onRequest({ request, url, serverContext, endResponse }) {
      try {
        const response = await answer(request, url);
        if (response) endResponse(response);
      } catch (error) {
        const context = requestContextOf(serverContext);
        // The access log's code, set where the refusal is made.
        endResponse(restErrorResponse(failureOf(error, context, options.log), context.requestId));
      }
    },
  };
}
