import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { getNamedType, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { csvHeader, csvRow, exportCost } from '../../domain/currency/series-export';
import type { SeriesEntry } from '../../domain/currency/series';
import type { GraphQLContext } from '../../graphql/context';
import { selectAllJson } from '../../graphql/serialize';
import type { Metrics } from '../../metrics';
import type { AppServices } from '../../services';
import type { SeriesAnswer, SeriesPlan } from '../../services/currencies';
import type { ExportBody } from '../../services/series-exports';
import type { RequestContext } from '../../services/request-context';
import { EXPORTED_FIELD, exportParts, negotiate, type MediaType } from '../answer/answer-formats';
import type { RouteCall } from './endpoint';
import type { ResponseParts } from '../answer/answer-parts';
import { strongEtagOf } from '../answer/shared-resource';
import { headerText } from '../front/target';

/** Milliseconds of computing per chunk (writing it adds a fraction); the event loop serves other requests between chunks. */
export const CHUNK_BUDGET_MS = 1.5;

export interface SeriesExportOptions {
  schema: GraphQLSchema;
  services: Pick<AppServices, 'currencies' | 'seriesExports' | 'rates'>;
  metrics: Pick<Metrics, 'seriesExport'>;
  /** Spends `points` more requests of the key's rate limit (RATE_LIMIT_EXCEEDED past the window). */
  spendRequests(context: RequestContext, points: number): Promise<void>;
}

/**
 * The series route, in both REST executions: its page planned from the checked arguments and the
 * negotiated media type (a cursor is bound to both); a complete page served from the export cache
 * when it was written before under the same rates; otherwise, within the key's exports in flight
 * and after its cost is spent, computed and written a chunk of publications at a time, yielding
 * between chunks, so one export never holds the event loop for long. (SOFA, or one serialisation
 * of the whole answer, would write it in one turn.) The slot is held until the answer is sent.
 */
export function seriesExportExecution(options: SeriesExportOptions) {
  const { services, metrics } = options;
  const write = seriesWriter(options.schema);
  return async (call: RouteCall): Promise<ResponseParts> => {
    const route = call.endpoint.route;
    const mediaType = negotiate(headerText(call.req.headers.accept), ['application/json', ...(route.formats ?? [])]);
    const request = { ifNoneMatch: headerText(call.req.headers['if-none-match']), query: call.query };
    const principal = call.context.principal ?? (await call.context.authenticate());
    const plan = services.currencies.planSeries({ ...call.args, format: mediaType }, principal.account.plan);
    const key = plan.complete ? cacheKey(plan, mediaType) : undefined;
    const kept = key === undefined ? undefined : services.seriesExports.cached(key);
    if (kept) {
      metrics.seriesExport('cache');
      return exportParts(route, mediaType, plan, kept, request);
    }
    const release = services.seriesExports.claim(principal.keyId);
    try {
      // The admission spent one request; the page's rates pay for the rest, before any is computed.
      const currencies = plan.asked?.length ?? services.rates.knownCurrencies().size - 1;
      const cost = exportCost(plan.dates.length, currencies);
      if (cost > 1) await options.spendRequests(call.context, cost - 1);
      const answer = await services.currencies.answerSeries(plan);
      const body = await write(answer, mediaType, () => call.req.socket.destroyed);
      metrics.seriesExport('computed');
      if (key !== undefined) services.seriesExports.keep(key, body);
      holdUntilSent(call.res, release);
      return exportParts(route, mediaType, plan, body, request);
    } catch (error) {
      release();
      throw error;
    }
  };
}

/** Everything a complete page's bytes depend on besides the rates revision (the cache's own). */
function cacheKey(plan: SeriesPlan, mediaType: MediaType): string {
  return JSON.stringify([mediaType, plan.start, plan.end, plan.base, plan.group, plan.asked ?? null, plan.nextCursor, plan.decimals ?? null, plan.rounding]);
}

function holdUntilSent(res: ServerResponse, release: () => void): void {
  if (res.closed) release();
  else res.once('close', release);
}

/**
 * Writes a page in a media type, chunk by chunk: JSON exactly as GraphQL execution serialises the
 * field for SOFA (the page's members, then its entries a chunk at a time through the same
 * serialiser), NDJSON as those entries one a line with the base, CSV as series-export.ts lays it out.
 */
function seriesWriter(schema: GraphQLSchema) {
  const seriesType = schema.getQueryType()!.getFields()[EXPORTED_FIELD]!.type;
  const entriesType = (getNamedType(seriesType) as GraphQLObjectType).getFields()['entries']!.type;
  const entryType = getNamedType(entriesType) as GraphQLOutputType;
  const context = {} as GraphQLContext;
  const json = (type: GraphQLOutputType, value: unknown): string => selectAllJson(schema, type, value, context)!;
  const EMPTY = '"entries":[]}';

  return async (answer: SeriesAnswer, mediaType: MediaType, gone: () => boolean): Promise<ExportBody> => {
    const chunks: Buffer[] = [];
    const sha256 = createHash('sha256');
    let bytes = 0;
    const add = (text: string) => {
      const chunk = Buffer.from(text);
      chunks.push(chunk);
      sha256.update(chunk);
      bytes += chunk.length;
    };
    const header = { base: answer.base, group: answer.group, symbols: answer.symbols };
    let first = true;
    const rows: Record<MediaType, (entries: SeriesEntry[]) => string> = {
      'application/json': (entries) => `${first ? '' : ','}${json(entriesType, entries).slice(1, -1)}`,
      'application/x-ndjson': (entries) => entries.map((entry) => `{"base":${JSON.stringify(answer.base)},${json(entryType, entry).slice(1)}\n`).join(''),
      'text/csv': (entries) => entries.map((entry) => csvRow(entry, header)).join(''),
    };
    if (mediaType === 'application/json') {
      const head = json(seriesType, { ...answer, entries: emptyEntries });
      if (!head.endsWith(EMPTY)) throw new TypeError('RateSeries no longer ends with its entries: the export cannot write its JSON in chunks.');
      add(`{"data":${head.slice(0, -']}'.length)}`);
    }
    if (mediaType === 'text/csv') add(csvHeader(header));
    for await (const entries of answer.chunks(CHUNK_BUDGET_MS)) {
      if (gone()) throw new Error('the client closed its connection during a series export');
      add(rows[mediaType](entries));
      first = false;
    }
    if (mediaType === 'application/json') add(']}}');
    return { body: Buffer.concat(chunks, bytes), etag: strongEtagOf(sha256) };
  };
}

function* emptyEntries(): Generator<SeriesEntry> {}
