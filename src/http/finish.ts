import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ApiError } from '../domain/errors';
import type { Metrics } from '../metrics';
import type { AppServices } from '../services';
import type { RequestContext } from '../services/request-context';
import { restErrorParts, toApiError } from './errors';
import type { ResponseParts } from './answer-parts';
import { GRAPHQL_PATH } from './graphql-http';
import { languageHeaders } from './content-language';
import { routeLabel } from './routes';
import { pathOf } from './target';
import { createOutbox } from './outbox';
import { logRequest } from './use-request-log';
import { limitHeaders } from './use-limit-headers';
import { API_SECURITY_HEADERS } from './use-security-headers';

/** The request-metric label of `POST /graphql`, as the node:http front names it. */
export const GRAPHQL_LABEL = routeLabel(GRAPHQL_PATH);

export interface FinishOptions {
  services: Pick<AppServices, 'quota'>;
  log: Logger;
  clock: () => Date;
  metrics: Pick<Metrics, 'request'>;
}

/** Where an answer is counted (its request-metric label) and the CORS fields it carries: its endpoint's, or its path's. */
export interface AnswerPlace {
  readonly label: string;
  readonly cors: Readonly<Record<string, string>> | undefined;
}

/** How the edge writes its answers, times them for the metrics and logs them. */
export interface Finish {
  /** The headers every answer carries (security, CORS on a shared route, request id, limits), then one writeHead and one end. */
  send(req: IncomingMessage, res: ServerResponse, place: AnswerPlace | undefined, context: RequestContext, parts: ResponseParts, started: number): Promise<void>;
  /** A request entered the edge in this turn (see outbox.ts). */
  entered(): void;
  /** The answer to a request whose serving threw: a bare 500, or nothing when the client has gone. */
  unexpected(req: IncomingMessage, res: ServerResponse, started: number): (error: unknown) => void;
  /** The answer's request metric: the time since the request entered the edge. */
  record(req: IncomingMessage, label: string, status: number, started: number): void;
}

/** One answer waiting in the outbox, and what its request metric and access-log line need. */
interface Outgoing {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request metric's route label. */
  label: string;
  /** performance.now() when the request entered the edge. */
  started: number;
  parts: ResponseParts;
  context: RequestContext;
}

export function createFinish(options: FinishOptions): Finish {
  const logging = () => options.log.isLevelEnabled('info');
  const record = (req: IncomingMessage, label: string, status: number, started: number) =>
    options.metrics.request(label, req.method!, status, (performance.now() - started) / 1000);

  const unexpected = (req: IncomingMessage, res: ServerResponse, started: number) => (error: unknown) => {
    if (req.socket.destroyed) {
      // The client closed its connection before its answer (a body cut off half-way): no fault of
      // the server's, and no one left to answer.
      options.log.debug({ err: error }, 'the client closed its connection before the answer');
    } else {
      options.log.error({ err: error }, 'unexpected error at the edge');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
    }
    res.end();
    record(req, routeLabel(pathOf(req.url)), res.statusCode, started);
  };

  const write = ({ req, res, label, started, parts, context }: Outgoing) => {
    try {
      // On HEAD, node:http sends the headers (Content-Length included) and drops the body itself.
      res.writeHead(parts.status, parts.headers);
      res.end(parts.body);
      record(req, label, parts.status, started);
      if (logging()) logRequest(options.log, { method: req.method!, path: pathOf(req.url!), status: parts.status, context });
    } catch (error) {
      unexpected(req, res, started)(error);
    }
  };
  const outbox = createOutbox(write);

  const send: Finish['send'] = async (req, res, place, context, parts, started) => {
    const label = place?.label ?? GRAPHQL_LABEL;
    stamp(parts, place, context);
    let limits = limitHeaders(context, options.services.quota, options.clock, (name) => name in parts.headers);
    if (limits instanceof Promise) {
      try {
        limits = await limits;
      } catch (error) {
        // The quota could not be read for the headers (the database went away): a GraphQL result
        // stands without them; a REST answer becomes that error in the contract's shape (503 with
        // Retry-After), not a bare 500.
        if (place === undefined) limits = {};
        else {
          if (!(error instanceof ApiError)) options.log.error({ err: error, requestId: context.requestId }, 'unexpected error');
          const failed = restErrorParts(toApiError(error), context.requestId);
          stamp(failed, place, context);
          return outbox.post({ req, res, label, started, parts: failed, context });
        }
      }
    }
    Object.assign(parts.headers, limits);
    outbox.post({ req, res, label, started, parts, context });
  };

  return { send, entered: outbox.entered, unexpected, record };
}

/** The headers every answer of the edge carries, whatever its status: security, CORS on a shared path, the request id, the language of its names. */
function stamp({ headers, status }: ResponseParts, place: AnswerPlace | undefined, context: RequestContext): void {
  Object.assign(headers, API_SECURITY_HEADERS, place?.cors, languageHeaders(context, status, headers['vary']));
  headers['x-request-id'] = context.requestId;
}
