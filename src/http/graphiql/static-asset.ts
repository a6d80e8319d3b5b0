import { createHash } from 'node:crypto';
import { acceptedCoding, encode, isCompressible } from '../answer/compression';
import { codedEtag, etagMatches } from '../answer/shared-resource';

/** A file served from memory under a name that holds its hash: cached for a year, never revalidated. */
export interface StaticAsset {
  /** `graphiql.3f2a9c0d1e4b5a6f.js`: the SHA-256 prefix changes whenever the bytes do. */
  readonly name: string;
  readonly contentType: string;
  readonly body: Buffer;
  /** Strong validator of the identity bytes; encoded bodies get their own (`"…-br"`, `"…-gzip"`). */
  readonly etag: string;
  /** Text compresses; woff2, png and the like already are compressed. */
  readonly compressible: boolean;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

export function staticAsset(base: string, extension: string, contentType: string, body: Buffer | string): StaticAsset {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const digest = createHash('sha256').update(bytes).digest();
  return {
    name: `${base}.${digest.toString('hex').slice(0, 16)}.${extension}`,
    contentType,
    body: bytes,
    etag: `"${digest.toString('base64url').slice(0, 32)}"`,
    compressible: isCompressible(contentType),
  };
}

/**
 * Compresses each asset once, off the event loop (zlib's thread pool), on first use, at the levels
 * of kept bodies (compression.ts). Brotli at quality 9: within a few percent of 11 on the GraphiQL
 * bundle at a tenth of the time.
 */
export class CompressedBodies {
  private readonly cache = new Map<string, Promise<Record<'br' | 'gzip', Buffer>>>();

  of(asset: StaticAsset): Promise<Record<'br' | 'gzip', Buffer>> {
    let bodies = this.cache.get(asset.name);
    if (!bodies) {
      bodies = Promise.all([encode(asset.body, 'br', true), encode(asset.body, 'gzip', true)]).then(([br, gzip]) => ({ br, gzip }));
      this.cache.set(asset.name, bodies);
    }
    return bodies;
  }
}

/**
 * The answer to GET or HEAD of an asset: 304 on a matching If-None-Match (the finish gives it the
 * validator of the coding the client holds), else the body in the coding negotiated, compressed
 * once; identity only when `compressed` is absent (COMPRESSION=off).
 */
export async function assetResponse(request: Request, asset: StaticAsset, compressed: CompressedBodies | undefined): Promise<Response> {
  const encoding = asset.compressible && compressed ? acceptedCoding(request.headers.get('accept-encoding')) : 'identity';
  const headers: Record<string, string> = { 'cache-control': IMMUTABLE, etag: asset.etag, 'content-type': asset.contentType };
  if (asset.compressible && compressed) headers['vary'] = 'Accept-Encoding';
  if (etagMatches(request.headers.get('if-none-match'), asset.etag)) {
    // A 304 names its type only when it is one never compressed (compression.ts).
    if (asset.compressible) delete headers['content-type'];
    return new Response(null, { status: 304, headers });
  }
  const body = encoding === 'identity' ? asset.body : (await compressed!.of(asset))[encoding];
  if (encoding !== 'identity') {
    headers['content-encoding'] = encoding;
    headers['etag'] = codedEtag(asset.etag, encoding);
  }
  headers['content-length'] = String(body.length);
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}
