import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { isStreamed, type ResponseParts, type StreamedBody } from './answer-parts';
import { codedEtag, etagCandidates, type ContentCoding } from './shared-resource';
import { mergeVary } from './vary';

/**
 * Compression of answers by Accept-Encoding (RFC 9110 12.5.3): Brotli or gzip, through zlib's
 * thread pool (never its synchronous calls), for answers of a text type at least
 * COMPRESSION_THRESHOLD bytes long. Every answer of such a type varies on Accept-Encoding; an
 * encoded one carries its Content-Encoding, its own length and its own strong validator.
 */

type Coding = ContentCoding | 'identity';

/**
 * Shorter answers are sent as they are: with their headers they fit in one TCP segment either way,
 * so compressing them saves no round trip and costs a trip to zlib's thread pool.
 */
const COMPRESSION_THRESHOLD = 1024;

/**
 * Per-request levels, chosen for CPU (docs/compression.md has the measurements): on a 1.47 MB
 * series answer Brotli 4 reaches 19.4 % of the size in about 30 ms where 5 takes twice as long for
 * 18.2 %, and gzip 4 reaches 22.3 % in about 21 ms where 6 (zlib's default) takes 2.6 times as long
 * for 19.3 %.
 */
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 4;
/**
 * Streamed answers (series exports) live as long as their client reads, so their compressor's
 * memory is held that long: Brotli 4 with a window of 2^18 bytes and gzip 4 with memLevel 5.
 * Measured per stream held open (docs/compression.md): Brotli 4 at its default window (2^22)
 * about 16 MB, at 2^18 about 3.2 MB, for 27.8 % of the size instead of 28.1 %; gzip about 1.4 MB.
 */
const STREAM_BROTLI_WINDOW = 18;
const STREAM_GZIP_MEM_LEVEL = 5;

/** What one streamed answer holds while its client reads, by coding, as the export slots count it: the measured figures with room to spare. */
export const STREAM_MEMORY_BYTES: Readonly<Record<Coding, number>> = { br: 4 * 1024 * 1024, gzip: 2 * 1024 * 1024, identity: 512 * 1024 };

/** Pre-built answers are compressed once and sent many times: the densest levels that stay well under a second on the OpenAPI document. */
const KEPT_BROTLI_QUALITY = 9;
const KEPT_GZIP_LEVEL = 9;

/** Accept-Encoding elements read per request: a longer header is judged on its first ones. */
const MAX_CODINGS = 32;

/**
 * Types worth compressing: text (but never an event stream, whose events must arrive as they are
 * written), JSON and its `+json` types, NDJSON, JavaScript, SVG and TrueType fonts (GraphiQL's
 * assets). Other images and fonts (WOFF, WOFF2) and archives already are compressed.
 */
const COMPRESSIBLE =
  /^\s*(?:text\/(?!event-stream\b)|application\/(?:json|x-ndjson|ndjson|javascript|[\w.-]+\+json)\b|image\/svg\+xml\b|font\/ttf\b)/i;

export function isCompressible(contentType: string | undefined): boolean {
  return contentType !== undefined && COMPRESSIBLE.test(contentType);
}

/** A q-value as RFC 9110 12.4.2 writes it (`q=0.5`, at most three decimals); undefined when the parameters are anything else. */
function qualityOf(parameters: string): number | undefined {
  const match = /^\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/i.exec(parameters);
  return match ? Number(match[1]) : undefined;
}

/**
 * The coding to answer in: of Brotli and gzip, the one with the higher q-value (Brotli on a tie,
 * being the denser), `*` standing for either when not named; identity when neither is acceptable,
 * or when `identity` is named with a higher q-value. No header, an empty one, or elements that do
 * not parse (which are skipped) leave identity. Identity is sent even when refused (`identity;q=0`):
 * the contract has no 406, and RFC 9110 lets a server send it then.
 */
export function acceptedCoding(acceptEncoding: string | null | undefined): Coding {
  if (!acceptEncoding) return 'identity';
  const q: Partial<Record<'br' | 'gzip' | 'identity' | '*', number>> = {};
  for (const element of acceptEncoding.split(',', MAX_CODINGS)) {
    const semicolon = element.indexOf(';');
    const name = (semicolon < 0 ? element : element.slice(0, semicolon)).trim().toLowerCase();
    const quality = semicolon < 0 ? 1 : qualityOf(element.slice(semicolon + 1));
    if (quality === undefined) continue;
    // RFC 9110 8.4.1.3: x-gzip is gzip.
    const coding = name === 'x-gzip' ? 'gzip' : name;
    if (coding === 'br' || coding === 'gzip' || coding === 'identity' || coding === '*') q[coding] = quality;
  }
  const br = q.br ?? q['*'] ?? 0;
  const gzip = q.gzip ?? q['*'] ?? 0;
  const best: ContentCoding = br >= gzip ? 'br' : 'gzip';
  const weight = Math.max(br, gzip);
  if (weight <= 0 || (q.identity !== undefined && q.identity > weight)) return 'identity';
  return best;
}

function zlibStream(coding: ContentCoding): zlib.BrotliCompress | zlib.Gzip {
  if (coding === 'gzip') return zlib.createGzip({ level: GZIP_LEVEL, memLevel: STREAM_GZIP_MEM_LEVEL });
  return zlib.createBrotliCompress({
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_LGWIN]: STREAM_BROTLI_WINDOW },
  });
}

/**
 * A streamed body in a content coding, chunk by chunk, at the streaming levels: memory stays that
 * of the compressor's window (STREAM_MEMORY_BYTES), however long the body. A failure of the source fails the encoded stream; a consumer that stops early
 * releases both.
 */
export async function* compressChunks(chunks: StreamedBody, coding: ContentCoding): AsyncGenerator<Buffer> {
  const source = Readable.from(chunks);
  const encoder = zlibStream(coding);
  source.on('error', (error) => encoder.destroy(error));
  source.pipe(encoder);
  try {
    for await (const chunk of encoder) yield chunk as Buffer;
  } finally {
    source.destroy();
    encoder.destroy();
  }
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** A whole body in a content coding, off the event loop; `kept`: at the levels of a body sent many times. */
export function encode(body: string | Buffer, coding: ContentCoding, kept: boolean): Promise<Buffer> {
  if (coding === 'gzip') return gzip(body, { level: kept ? KEPT_GZIP_LEVEL : GZIP_LEVEL });
  return brotli(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: kept ? KEPT_BROTLI_QUALITY : BROTLI_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** What the step reads of the request. */
export interface CodingRequest {
  method: string;
  acceptEncoding: string | null;
  ifNoneMatch: string | null;
}

/** The finish's compression step: the answer as it leaves, synchronously when nothing is to be encoded. */
type Compression = (request: CodingRequest, answer: ResponseParts) => ResponseParts | Promise<ResponseParts>;

/**
 * The step, with the encodings of pre-built bodies (`prebuilt`) made once and kept as long as the
 * body itself lives (a WeakMap on the body's bytes).
 */
export function createCompression(): Compression {
  const kept = new WeakMap<Buffer, Partial<Record<ContentCoding, Promise<Buffer>>>>();
  const keptEncoding = (body: Buffer, coding: ContentCoding): Promise<Buffer> => {
    let encodings = kept.get(body);
    if (!encodings) kept.set(body, (encodings = {}));
    let encoded = encodings[coding];
    if (!encoded) {
      encoded = encode(body, coding, true);
      encodings[coding] = encoded;
      encoded.catch(() => delete encodings[coding]);
    }
    return encoded;
  };

  return (request: CodingRequest, answer: ResponseParts): ResponseParts | Promise<ResponseParts> => {
    const { headers, status, body } = answer;
    // Never twice: an answer that is encoded already (a hashed asset) is left as it is.
    if (headers['content-encoding'] !== undefined) return answer;
    if (status === 304) return revalidated(request, answer);
    if (status < 200 || status === 204 || status === 206 || !isCompressible(headers['content-type'])) return answer;
    headers['vary'] = mergeVary(headers['vary'], ['Accept-Encoding']);
    const coding = acceptedCoding(request.acceptEncoding);
    if (coding === 'identity' || !worthCompressing(answer)) return answer;
    if (headers['etag'] !== undefined) headers['etag'] = codedEtag(headers['etag'], coding);
    headers['content-encoding'] = coding;
    if (body === null || isStreamed(body)) {
      delete headers['content-length'];
      if (body !== null && request.method !== 'HEAD') answer.body = compressChunks(body, coding);
      return answer;
    }
    const prebuilt = answer.prebuilt === true && Buffer.isBuffer(body);
    // HEAD sends no body: its Content-Length is the encoded one when that is kept, else left out (RFC 9110 8.6).
    if (request.method === 'HEAD' && !prebuilt) {
      delete headers['content-length'];
      return answer;
    }
    return (prebuilt ? keptEncoding(body as Buffer, coding) : encode(body, coding, false)).then((encoded) => {
      headers['content-length'] = String(encoded.length);
      if (request.method !== 'HEAD') answer.body = encoded;
      return answer;
    });
  };
}

/** A body at least COMPRESSION_THRESHOLD bytes long, by its Content-Length when it states one (a HEAD's is the GET's); a streamed one, of unknown length, always is. */
function worthCompressing({ body, headers }: ResponseParts): boolean {
  const declared = headers['content-length'];
  if (declared !== undefined) return Number(declared) >= COMPRESSION_THRESHOLD;
  if (body === null) return false;
  if (typeof body === 'string') return body.length >= COMPRESSION_THRESHOLD || Buffer.byteLength(body) >= COMPRESSION_THRESHOLD;
  return Buffer.isBuffer(body) ? body.length >= COMPRESSION_THRESHOLD : true;
}

/**
 * A 304 stands for the answer the client holds: it varies on Accept-Encoding as that answer does
 * (a 304 names its type only when it is one never compressed), names no length (the 200's depends
 * on the coding), and carries the validator of the representation the client is told to use: of
 * the validators If-None-Match lists for this content, the one of the coding this request would be
 * sent in, else the identity one, else the coded one it lists (RFC 9110 15.4.5).
 */
function revalidated(request: CodingRequest, answer: ResponseParts): ResponseParts {
  const { headers } = answer;
  if (headers['content-type'] !== undefined && !isCompressible(headers['content-type'])) return answer;
  headers['vary'] = mergeVary(headers['vary'], ['Accept-Encoding']);
  delete headers['content-length'];
  const etag = headers['etag'];
  if (etag === undefined || request.ifNoneMatch === null) return answer;
  const listed = new Set(etagCandidates(request.ifNoneMatch));
  const coding = acceptedCoding(request.acceptEncoding);
  const preferred = [...(coding === 'identity' ? [] : [codedEtag(etag, coding)]), etag, codedEtag(etag, 'br'), codedEtag(etag, 'gzip')];
  headers['etag'] = preferred.find((candidate) => listed.has(candidate)) ?? etag;
  return answer;
}
