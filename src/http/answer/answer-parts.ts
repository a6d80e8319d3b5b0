/**
 * A body written as it is produced, a chunk at a time (chunked transfer encoding): an answer too
 * large to hold whole (an export of the whole history). The finish pulls the next chunk only once
 * the previous one is accepted by the socket, and calls `return()` when the client goes away.
 */
export type StreamedBody = AsyncIterable<string | Uint8Array>;

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An answer before the edge writes it (node:http), or as a Fetch Response for Yoga's plugins. */
export interface ResponseParts {
  status: number;
  /** Lower-case names: every producer writes the same fields, and a later one never doubles an earlier one. */
  headers: Record<string, string>;
  /** Pre-built answers are kept as bytes: nothing to encode per request. A streamed body has no Content-Length. */
  body: string | Buffer | StreamedBody | null;
  /** The body is the same bytes on every request (a pre-built answer): its compressed forms are made once and kept with it (compression.ts). */
  prebuilt?: boolean;
}

/** Whether a body is written as it is produced rather than held whole. */
export function isStreamed(body: ResponseParts['body']): body is StreamedBody {
  return body !== null && typeof body !== 'string' && !Buffer.isBuffer(body);
}

export function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  // for…in over a plain record: no [name, value] array per header (the limit headers, on every answer).
  for (const name in headers) if (Object.hasOwn(headers, name)) out[name.toLowerCase()] = headers[name]!;
  return out;
}

/** The same answer as a Fetch Response, for what Yoga answers (pages, GraphiQL, SOFA's errors): a whole body, never a streamed one. */
export function toResponse(parts: ResponseParts & { body: string | Buffer | null }): Response {
  const body = typeof parts.body === 'string' || parts.body === null ? parts.body : new Uint8Array(parts.body);
  return new Response(body, { status: parts.status, headers: parts.headers });
}
