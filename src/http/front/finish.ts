import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from '../../metrics';
import type { AppServices } from '../../services';
import { failureOf, restErrorParts } from '../answer/errors';
import { isStreamed, type ResponseParts, type StreamedBody } from '../answer/answer-parts';
import { discardStreamed, writeStreamed, type StreamOptions } from './streamed-body';
import { languageHeaders } from '../answer/content-language';
import { createCompression, type CodingRequest } from '../answer/compression';
import { headerText, pathOf } from './target';
import { createOutbox } from './outbox';
import { logRequest } from './request-log';
import { limitHeaders } from '../answer/limit-headers';
import { addSecurityHeaders } from './security-headers';
import type { HttpRequestContext } from './request-context';

export interface FinishOptions {
  services: Pick<AppServices, 'quota'>;
  log: Logger;
  clock: () => Date;
  metrics: Pick<Metrics, 'request'>;
  /** COMPRESSION: answers are compressed by Accept-Encoding (compression.ts) unless this is false. */
  compression?: boolean;
  /** STREAM_PROGRESS_TIMEOUT_SECONDS, in ms: a streamed body's client that takes nothing for this long is cut off (default 30 s). */
  streamProgressTimeoutMs?: number;
}

/** A client of a streamed body that takes nothing for this long is cut off, when the finish is given no other figure. */
export const STREAM_PROGRESS_TIMEOUT_MS = 30_000;

/** Where an answer is counted (its request-metric label), the CORS fields it carries, and what a failure of its limit headers does to it. */
export interface AnswerPlace {
  readonly label: string;
  readonly cors: Readonly<Record<string, string>> | undefined;
  /**
   * The answer stands when its key cannot be confirmed or its quota read for the headers (a
   * GraphQL result, a page): it goes without those headers. Otherwise (a REST answer) it becomes
   * that error in the contract's shape.
   */
  readonly standsWithoutLimits?: boolean;
}

/** The one way every answer leaves the front. */
export interface Finish {
  /**
   * Stamps what every answer carries (security headers by content type, CORS on a shared path, the
   * request id, the language of its names), confirms the key (confirmKey), adds the limit and quota
   * headers, compresses it as the request accepts (compression.ts), then writes it with its reason
   * phrase in one writeHead and one end (a streamed body: chunk by chunk after the head, see
   * streamed-body.ts), counts one metric and logs one access-log line with its error code (a
   * streamed body's once it has ended).
   */
  send(
    req: IncomingMessage,
    res: ServerResponse,
    place: AnswerPlace,
    context: HttpRequestContext,
    parts: ResponseParts,
    started: number,
  ): Promise<void>;
  /** A request entered the front in this turn (see outbox.ts). */
  entered(): void;
  /** The answer to a request whose serving threw: the contract's INTERNAL error, or nothing when the client has gone. */
  unexpected(
    req: IncomingMessage,
    res: ServerResponse,
    place: AnswerPlace,
    context: HttpRequestContext,
    started: number,
  ): (error: unknown) => void;
}

/** One answer waiting in the outbox, and what its request metric and access-log line need. */
interface Outgoing {
  req: IncomingMessage;
  res: ServerResponse;
  place: AnswerPlace;
  /** performance.now() when the request entered the front. */
  started: number;
  parts: ResponseParts;
  context: HttpRequestContext;
}

export function createFinish(options: FinishOptions): Finish {
  const compress = options.compression === false ? undefined : createCompression();
  const logging = () => options.log.isLevelEnabled('info');
  const record = (req: IncomingMessage, label: string, status: number, started: number) =>
    options.metrics.request(label, req.method!, status, (performance.now() - started) / 1000);
  /** An answer has left (or was cut): it is counted and logged, and what its request held until then is given back. */
  const written = (req: IncomingMessage, place: AnswerPlace, status: number, context: HttpRequestContext, started: number) => {
    context.answered();
    record(req, place.label, status, started);
    if (logging()) logRequest(options.log, { method: req.method!, path: pathOf(req.url!), status, context });
  };

  const unexpected: Finish['unexpected'] = (req, res, place, context, started) => (error) => {
    if (req.socket.destroyed) {
      // The client closed its connection before its answer (a body cut off half-way): no fault of
      // the server's, and no one left to answer.
      options.log.debug({ err: error, requestId: context.requestId }, 'the client closed its connection before the answer');
      res.end();
      context.answered();
      record(req, place.label, res.statusCode, started);
      return;
    }
    const api = failureOf(error, context, options.log);
    if (res.headersSent) {
      res.end();
      written(req, place, res.statusCode, context, started);
      return;
    }
    const parts = restErrorParts(api, context.requestId);
    stamp(parts, place, context);
    res.writeHead(parts.status, STATUS_CODES[parts.status], parts.headers);
    res.end(parts.body);
    written(req, place, parts.status, context, started);
  };

  const write = (outgoing: Outgoing) => {
    const { req, res, place, started, parts, context } = outgoing;
    const done = () => written(req, place, parts.status, context, started);
    try {
      res.writeHead(parts.status, STATUS_CODES[parts.status], parts.headers);
      const streaming = endOrStream(outgoing, options.log, {
        progressTimeoutMs: options.streamProgressTimeoutMs ?? STREAM_PROGRESS_TIMEOUT_MS,
      });
      if (streaming) void streaming.then(done, unexpected(req, res, place, context, started));
      else done();
    } catch (error) {
      unexpected(req, res, place, context, started)(error);
    }
  };
  const outbox = createOutbox(write);

  const send: Finish['send'] = async (req, res, place, context, parts, started) => {
    stamp(parts, place, context);
    let answer = await confirmedWithLimits(options, place, context, parts);
    if (compress) {
      const encoded = compress(codingRequest(req), answer);
      answer = encoded instanceof Promise ? await encoded : encoded;
    }
    outbox.post({ req, res, place, started, parts: answer, context });
  };

  return { send, entered: outbox.entered, unexpected };
}

/**
 * The answer once its key is confirmed (a key taken from the cache unconfirmed: a revoked key's
 * answer becomes UNAUTHORIZED), with its limit and quota headers; or the failure either step gave.
 */
async function confirmedWithLimits(
  options: FinishOptions,
  place: AnswerPlace,
  context: HttpRequestContext,
  parts: ResponseParts,
): Promise<ResponseParts> {
  const failed = (error: unknown) => failedLimits(options.log, error, place, context, parts);
  const confirming = context.confirmKey();
  if (confirming) {
    const confirmed = await confirming.then(
      () => parts,
      (error: unknown) => failed(error),
    );
    if (confirmed !== parts) return confirmed;
  }
  try {
    const limits = limitHeaders(context, options.services.quota, options.clock, parts.headers);
    Object.assign(parts.headers, limits instanceof Promise ? await limits : limits);
    return parts;
  } catch (error) {
    return failed(error);
  }
}

function codingRequest(req: IncomingMessage): CodingRequest {
  return {
    method: req.method!,
    acceptEncoding: headerText(req.headers['accept-encoding']),
    ifNoneMatch: headerText(req.headers['if-none-match']),
  };
}

/** The answer when confirming the key or reading the quota failed: the same answer without those headers, or that error. */
function failedLimits(log: Logger, error: unknown, place: AnswerPlace, context: HttpRequestContext, parts: ResponseParts): ResponseParts {
  if (place.standsWithoutLimits) return parts;
  const refused = restErrorParts(failureOf(error, context, log), context.requestId);
  stamp(refused, place, context);
  return refused;
}

/**
 * Ends an answer after its head: with its whole body, or (not on HEAD) its streamed body as it
 * comes, returning the promise of that body's end. On HEAD, node:http sends the headers
 * (Content-Length included) and drops a whole body itself; a streamed one is never started.
 */
function endOrStream(outgoing: Outgoing, log: Logger, streamOptions: StreamOptions): Promise<void> | undefined {
  const { req, res, parts } = outgoing;
  if (!isStreamed(parts.body)) {
    res.end(parts.body);
    return undefined;
  }
  if (req.method !== 'HEAD') return stream(outgoing, parts.body, log, streamOptions);
  discardStreamed(parts.body);
  res.end();
  return undefined;
}

/** Writes a streamed body after its head; resolves once it has ended, however it ended (its metric and log line follow). */
async function stream({ res, context }: Outgoing, body: StreamedBody, log: Logger, streamOptions: StreamOptions): Promise<void> {
  const end = await writeStreamed(res, body, streamOptions);
  if (end.ended === 'gone') log.debug({ requestId: context.requestId }, 'the client closed its connection during a streamed answer');
  if (end.ended === 'stalled')
    log.info(
      { requestId: context.requestId, timeoutMs: streamOptions.progressTimeoutMs },
      'a streamed answer was cut off: its client took nothing within the progress timeout',
    );
  if (end.ended === 'failed') {
    // The head is sent: the answer cannot become a 500, so the connection was cut and the error is logged.
    log.error({ err: end.error, requestId: context.requestId }, 'unexpected error in a streamed answer');
    context.errorCode = 'INTERNAL';
  }
}

/** The headers every answer carries, whatever its status: security (by content type), CORS on a shared path, the language of its names, the request id. */
function stamp({ headers, status }: ResponseParts, place: AnswerPlace, context: HttpRequestContext): void {
  addSecurityHeaders(headers);
  if (place.cors) Object.assign(headers, place.cors);
  if (context.languages.length > 0) Object.assign(headers, languageHeaders(context, status, headers['vary']));
  headers['x-request-id'] = context.requestId;
}
