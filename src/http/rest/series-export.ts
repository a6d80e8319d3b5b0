import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { getNamedType, type GraphQLObjectType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { csvHeader, csvRow } from '../../domain/currency/series-export';
import type { SeriesEntry } from '../../domain/currency/series';
import type { GraphQLContext } from '../../graphql/context';
import { selectAllJson } from '../../graphql/serialize';
import type { Metrics } from '../../metrics';
import type { AppServices } from '../../services';
import type { SeriesAnswer, SeriesPlan, SeriesStream } from '../../services/currency/series';
import { CHUNK_BUDGET_MS, isKept, pageKey, type ExportBody } from '../../services/series-exports';
import { acceptedCoding, STREAM_MEMORY_BYTES } from '../answer/compression';
import { EXPORTED_FIELD, exportParts, negotiate, type AnswerRequest, type MediaType } from '../answer/answer-formats';
import type { RouteCall } from './endpoint';
import type { ResponseParts, StreamedBody } from '../answer/answer-parts';
import { etagMatches, strongEtagOf } from '../answer/shared-resource';
import { headerText } from '../front/target';

interface SeriesExportOptions {
  schema: GraphQLSchema;
  services: Pick<AppServices, 'rateSeries' | 'seriesExports'>;
  metrics: Pick<Metrics, 'seriesExport'>;
}

/**
 * The series route, in both REST executions: its page planned from the checked arguments and the
 * negotiated media type (a cursor is bound to both); a page the export cache keeps (isKept: a
 * complete ECB page, any page of another source) served from it when it was written before under
 * the same rates; otherwise admitted by the service (a slot of
 * the key's exports in flight, of its links' when asked through a signed link, and of the
 * instance's; its cost spent) and computed. JSON (a page of at most ten years) is computed a chunk of
 * publications at a time, yielding between chunks, and sent whole; CSV and NDJSON (any range, up
 * to the whole history) are streamed as they are read (streamedExport). The slot is held until the
 * answer is sent.
 */
export function seriesExportExecution(options: SeriesExportOptions) {
  const { services, metrics } = options;
  const write = seriesWriter(options.schema);
  const streamed = streamedExport(options, write.ndjsonLines);
  return async (call: RouteCall): Promise<ResponseParts> => {
    const route = call.endpoint.route;
    const mediaType = route.format ?? negotiate(call.accept, ['application/json', ...(route.formats ?? [])]);
    const request = { ifNoneMatch: headerText(call.req.headers['if-none-match']), query: call.query };
    const principal = call.context.principal ?? (await call.context.authenticate());
    const plan = services.rateSeries.planSeries({ ...call.args, format: mediaType }, principal.account.plan);
    const key = isKept(plan) ? cacheKey(plan, mediaType) : undefined;
    const kept = key === undefined ? undefined : services.seriesExports.cached(key);
    if (kept) {
      metrics.seriesExport('cache');
      return asKept(exportParts(route, mediaType, plan, kept, request));
    }
    if (mediaType !== 'application/json') return streamed(call, principal.keyId, plan, mediaType, key, request);
    const release = await services.seriesExports.admit(plan, principal.keyId, call.context);
    try {
      const answer = await services.rateSeries.answerSeries(plan);
      const body = await write.json(answer, () => call.req.socket.destroyed);
      metrics.seriesExport('computed');
      if (key !== undefined) services.seriesExports.keep(key, body);
      holdUntilSent(call.res, release);
      const parts = exportParts(route, mediaType, plan, body, request);
      return key === undefined ? parts : asKept(parts);
    } catch (error) {
      release();
      throw error;
    }
  };
}

/**
 * A page the export cache holds is the same bytes for every request that reads it: its compressed
 * forms are made once and kept with those bytes (compression.ts), not compressed again per request.
 */
function asKept(parts: ResponseParts): ResponseParts {
  parts.prebuilt = true;
  return parts;
}

/** Characters of rows collected before they are written: chunks of a few KB, whatever the range. */
const STREAM_CHUNK_CHARS = 8192;

/**
 * CSV and NDJSON, streamed: a complete page's strong validator is made from what decides its bytes
 * (the query as planned, the media type, the publications it covers and the rates revision), so
 * If-None-Match is answered 304 before any slot is claimed, any cost spent or any publication
 * read. Otherwise the currencies are checked and the columns decided (a RATE_NOT_FOUND is still an
 * error answer with its status), then the rows are written as the publications are read, a slice
 * at a time, in chunks of STREAM_CHUNK_CHARS. A complete page small enough for the export cache is
 * collected on the way and kept once written whole.
 */
function streamedExport(options: SeriesExportOptions, ndjsonLines: NdjsonLines) {
  const { services, metrics } = options;
  const exports = services.seriesExports;
  return async (
    call: RouteCall,
    keyId: string,
    plan: SeriesPlan,
    mediaType: StreamedType,
    key: string | undefined,
    request: AnswerRequest,
  ): Promise<ResponseParts> => {
    const route = call.endpoint.route;
    const etag = key === undefined ? undefined : exportEtag(key, plan, exports.revisionTag());
    if (etag !== undefined && etagMatches(request.ifNoneMatch, etag))
      return exportParts(route, mediaType, plan, { body: Buffer.alloc(0), etag }, request);
    // A streamed page holds what its compressor holds for as long as its client reads.
    const memory = STREAM_MEMORY_BYTES[acceptedCoding(headerText(call.req.headers['accept-encoding']))];
    const release = await exports.admit(plan, keyId, call.context, memory);
    try {
      const stream = await services.rateSeries.streamSeries(plan);
      metrics.seriesExport('computed');
      const header = { base: stream.base, group: stream.group, symbols: stream.symbols };
      const lines =
        mediaType === 'text/csv'
          ? (entries: SeriesEntry[]) => entries.map((entry) => csvRow(entry, header)).join('')
          : ndjsonLines(stream.base);
      const keep =
        key === undefined || etag === undefined
          ? undefined
          : {
              upTo: exports.keepsUpTo,
              collect: (bytes: number) => exports.collect(bytes),
              keep: (body: Buffer) => exports.keep(key, { body, etag }),
            };
      const body = await pageBody(exportChunks(stream, mediaType === 'text/csv' ? csvHeader(header) : '', lines, keep));
      holdUntilSent(call.res, release);
      return exportParts(route, mediaType, plan, { body, etag }, request);
    } catch (error) {
      release();
      throw error;
    }
  };
}

type StreamedType = Exclude<MediaType, 'application/json'>;
type NdjsonLines = (base: string) => (entries: SeriesEntry[]) => string;

/** A strong validator of a streamed page without its bytes: the same query, format and rates give the same bytes. */
function exportEtag(cacheKey: string, plan: SeriesPlan, revision: string): string {
  const covered = [plan.dates.length, plan.dates[0] ?? null, plan.dates.at(-1) ?? null];
  return strongEtagOf(createHash('sha256').update(JSON.stringify([STREAM_FORMAT, cacheKey, covered, revision])));
}

/** The layout of streamed rows (csvRow, the NDJSON line): a change to it must change every validator. */
const STREAM_FORMAT = 2;

/**
 * The rows of a streamed page as chunks of at least STREAM_CHUNK_CHARS; the rest, shorter, is the
 * generator's return value (so a page that fits in one chunk is known whole before any byte is
 * sent). `keep` collects the chunks for the export cache while they fit, within the page's bound
 * and what the instance's streams may collect between them (collect), else keeps nothing.
 */
async function* exportChunks(
  stream: SeriesStream,
  head: string,
  lines: (entries: SeriesEntry[]) => string,
  keep: { upTo: number; collect: (bytes: number) => boolean; keep: (body: Buffer) => void } | undefined,
): AsyncGenerator<Buffer, Buffer> {
  let collected: Buffer[] | undefined = keep && [];
  let reserved = 0;
  const chunk = (text: string): Buffer => {
    const bytes = Buffer.from(text);
    if (collected && (reserved + bytes.length > keep!.upTo || !keep!.collect(bytes.length))) {
      // Past the bound: what was collected is given back at once, and nothing more is.
      collected = undefined;
      keep!.collect(-reserved);
      reserved = 0;
    } else if (collected) {
      reserved += bytes.length;
      collected.push(bytes);
    }
    return bytes;
  };
  try {
    let pending = head;
    for await (const entries of stream.chunks(CHUNK_BUDGET_MS)) {
      pending += lines(entries);
      if (pending.length < STREAM_CHUNK_CHARS) continue;
      yield chunk(pending);
      pending = '';
    }
    const rest = chunk(pending);
    if (collected) keep!.keep(Buffer.concat(collected, reserved));
    return rest;
  } finally {
    // Kept (the cache counts it now), dropped, or the client went away: the collection is given back.
    keep?.collect(-reserved);
  }
}

/**
 * The body of a streamed page: whole (with its Content-Length) when it fits in one chunk, else
 * streamed. Its first chunk is made before the head is written, so a failure there (the rates
 * database gone) is still an error answer with its status.
 */
async function pageBody(chunks: AsyncGenerator<Buffer, Buffer>): Promise<Buffer | StreamedBody> {
  const first = await chunks.next();
  if (first.done) return first.value;
  return continued(first.value, chunks);
}

async function* continued(first: Buffer, chunks: AsyncGenerator<Buffer, Buffer>): AsyncGenerator<Buffer> {
  let finished = false;
  try {
    yield first;
    for (;;) {
      const step = await chunks.next();
      if (step.done) finished = true;
      if (step.value.length > 0) yield step.value;
      if (finished) return;
    }
  } finally {
    // Stopped early (the client went away): the rows stop being read.
    if (!finished) await chunks.return(Buffer.alloc(0));
  }
}

/** Everything a kept page's bytes depend on besides the ECB's revision (the cache's own). */
function cacheKey(plan: SeriesPlan, mediaType: MediaType): string {
  return JSON.stringify([mediaType, ...pageKey(plan)]);
}

function holdUntilSent(res: ServerResponse, release: () => void): void {
  if (res.closed) release();
  else res.once('close', release);
}

/**
 * Writes a JSON page chunk by chunk exactly as GraphQL execution serialises the field for SOFA (the
 * page's members, then its entries a chunk at a time through the same serialiser); NDJSON lines
 * are those entries one a line with the base (CSV: series-export.ts in the domain).
 */
function seriesWriter(schema: GraphQLSchema) {
  const seriesType = schema.getQueryType()!.getFields()[EXPORTED_FIELD]!.type;
  const entriesType = (getNamedType(seriesType) as GraphQLObjectType).getFields()['entries']!.type;
  const entryType = getNamedType(entriesType) as GraphQLOutputType;
  const context = {} as GraphQLContext;
  const serialise = (type: GraphQLOutputType, value: unknown): string => selectAllJson(schema, type, value, context)!;
  const EMPTY = '"entries":[]}';

  const ndjsonLines: NdjsonLines = (base) => (entries) =>
    entries.map((entry) => `{"base":${JSON.stringify(base)},${serialise(entryType, entry).slice(1)}\n`).join('');

  const json = async (answer: SeriesAnswer, gone: () => boolean): Promise<ExportBody> => {
    const chunks: Buffer[] = [];
    const sha256 = createHash('sha256');
    let bytes = 0;
    const add = (text: string) => {
      const chunk = Buffer.from(text);
      chunks.push(chunk);
      sha256.update(chunk);
      bytes += chunk.length;
    };
    const head = serialise(seriesType, { ...answer, entries: emptyEntries });
    if (!head.endsWith(EMPTY))
      throw new TypeError('RateSeries no longer ends with its entries: the export cannot write its JSON in chunks.');
    add(`{"data":${head.slice(0, -']}'.length)}`);
    let first = true;
    for await (const entries of answer.chunks(CHUNK_BUDGET_MS)) {
      if (gone()) throw new Error('the client closed its connection during a series export');
      add(`${first ? '' : ','}${serialise(entriesType, entries).slice(1, -1)}`);
      first = false;
    }
    add(']}}');
    return { body: Buffer.concat(chunks, bytes), etag: strongEtagOf(sha256) };
  };

  return { json, ndjsonLines };
}

function* emptyEntries(): Generator<SeriesEntry> {}
