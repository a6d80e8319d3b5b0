/** A failed HTTP exchange with the ECB: the message is what status.lastError shows. */
export class EcbFetchError extends Error {
  /** Worth another try soon (network error, timeout, 5xx, 429); a 404 or 403 is not. */
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EcbFetchError';
    this.retryable = retryable;
  }
}

export interface HttpGetOptions {
  headers: Record<string, string>;
  /** Until the response headers arrive (connect, TLS, server think time). */
  connectTimeoutMs: number;
  /** For the whole exchange, body included. */
  totalTimeoutMs: number;
  maxBytes: number;
  /** Aborts the request from outside (service stop). */
  signal?: AbortSignal;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  /** The body of a 200; empty otherwise. */
  bytes: Uint8Array;
}

class Timeout extends Error {}

/** One GET with a connect-ish and a total timeout and a size cap; every failure is an EcbFetchError. */
export async function httpGet(fetchFn: typeof fetch, url: string, options: HttpGetOptions): Promise<HttpResult> {
  const headersArrived = new AbortController();
  const timer = setTimeout(
    () => headersArrived.abort(new Timeout(`no response within ${options.connectTimeoutMs} ms`)),
    options.connectTimeoutMs,
  );
  const total = AbortSignal.timeout(options.totalTimeoutMs);
  const signal = AbortSignal.any([headersArrived.signal, total, ...(options.signal ? [options.signal] : [])]);
  try {
    const response = await fetchFn(url, { headers: options.headers, signal, redirect: 'follow' });
    clearTimeout(timer);
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      return { status: response.status, headers: response.headers, bytes: new Uint8Array() };
    }
    return { status: 200, headers: response.headers, bytes: await readBody(response, options.maxBytes) };
  } catch (error) {
    if (error instanceof EcbFetchError) throw error;
    const reason: unknown = signal.aborted ? signal.reason : error;
    const message =
      reason instanceof Timeout
        ? reason.message
        : total.aborted
          ? `not complete within ${options.totalTimeoutMs} ms`
          : options.signal?.aborted
            ? 'aborted (shutting down)'
            : networkMessage(error);
    throw new EcbFetchError(`GET ${url}: ${message}`, !options.signal?.aborted, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

async function readBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new EcbFetchError(`body of ${declared} bytes is over the ${maxBytes}-byte limit`, false);
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new EcbFetchError(`body is over the ${maxBytes}-byte limit`, false);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks);
}

/** undici hides the real reason (ECONNREFUSED, ENOTFOUND …) in `cause`. */
function networkMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ? `${error.message} (${cause.code})` : cause?.message ? `${error.message} (${cause.message})` : error.message;
}
