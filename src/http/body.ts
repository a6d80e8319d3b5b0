import { ApiError } from '../domain/errors';

/** Reads a request body as UTF-8 text, refusing it (413) as soon as it passes `limit` bytes. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
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
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError('INVALID_REQUEST', 'The request body is not valid UTF-8.');
  }
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
