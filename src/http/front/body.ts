import type { IncomingMessage } from 'node:http';
import { ApiError } from '../../domain/errors';

/** Reads a request body as UTF-8 text, refusing it (413) as soon as it passes `limit` bytes. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  refuseCodedBody(request.headers.get('content-encoding') ?? undefined);
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (request.body === null) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return utf8Text(chunks);
}

/**
 * readBodyText for a node:http request (the edge, GraphQL's POST). The rest of an oversized body is read and
 * dropped, not left in the socket, so the 413 reaches the client.
 */
export function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    try {
      refuseCodedBody(req.headers['content-encoding']);
    } catch (error) {
      req.resume();
      reject(error);
      return;
    }
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      req.resume();
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.byteLength;
      if (size > limit) {
        refused = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (refused) return;
      try {
        resolve(utf8Text(chunks));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The body's bytes as text; INVALID_REQUEST when they are not UTF-8. */
export function utf8Text(chunks: readonly Uint8Array[]): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError('INVALID_REQUEST', 'The request body is not valid UTF-8.');
  }
}

/** 415 for a body that is not `application/json` (REST routes and POST /graphql). */
export function notJson(): ApiError {
  return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.');
}

/**
 * Request bodies are read as sent: one with a content coding other than `identity` (gzip, br...) is
 * refused with 415 and `Accept-Encoding: identity` (RFC 7694), not read as garbled text.
 */
function refuseCodedBody(header: string | undefined): void {
  if (header === undefined) return;
  const codings = codingsBesides(header, 'identity');
  if (codings.length === 0) return;
  throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `The request body has Content-Encoding ${codings.join(', ')}; send it uncompressed.`, {
    acceptEncoding: ['identity'],
  });
}

/** The codings a Content-Encoding or Transfer-Encoding list names, lower-cased, but `accepted` and empty entries. */
export function codingsBesides(header: string, accepted: string): string[] {
  return header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== accepted);
}

export function tooLarge(limit: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The request body is larger than ${limit / 1024} KiB.`);
}

/** Parses JSON, answering INVALID_REQUEST (never a 500) for anything malformed. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') throw new ApiError('INVALID_REQUEST', 'The request body is empty; send a JSON object.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
}

/** True for `application/json`, with or without parameters such as charset. */
export function isJsonContentType(header: string | null): boolean {
  if (header === null) return false;
  const mediaType = header.split(';', 1)[0]!.trim().toLowerCase();
  return mediaType === 'application/json';
}
