import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Publication } from '../../src/domain/ecb';
import type { RatesReader } from '../../src/services/currency/rates';
import { createTestApp, type TestApp } from '../helpers/app';
import { capturedLogger } from '../helpers/captured-log';
import { tableRates } from '../helpers/table-rates';

/**
 * Made-up publications (not ECB data): every weekday from 1999-01-04 to 2025-12-31, each quoting 80
 * made-up codes with long rate strings, so that an NDJSON export of the whole range is about 15 MB:
 * far more than a socket's buffers hold.
 */
const CODES = Array.from({ length: 80 }, (_, i) => `X${String.fromCharCode(65 + Math.floor(i / 26))}${String.fromCharCode(65 + (i % 26))}`);
function madeUpHistory(): Publication[] {
  const out: Publication[] = [];
  for (let day = new Date('1999-01-04T00:00:00Z'); day < new Date('2026-01-01T00:00:00Z'); day = new Date(day.getTime() + 86_400_000)) {
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    const i = out.length;
    out.push({
      date: day.toISOString().slice(0, 10),
      rates: Object.fromEntries(CODES.map((code, j) => [code, `${1 + j}.${String(100_000_000 + ((i * 7919 + j) % 99_999_999)).slice(1)}`])),
    });
  }
  return out;
}
const HISTORY = madeUpHistory();
const CLOCK = () => new Date('2026-01-15T12:00:00Z');
/** Publications read per slice by the export (LOAD_SLICE). */
const SLICE = 32;

/** tableRates that counts the publications read, and fails every read from the `failFrom`-th on when set. */
function countedRates(publications: Publication[]) {
  const inner = tableRates(publications);
  const reader: RatesReader & { read: number; reads: number; failFrom: number | undefined } = {
    ...inner,
    read: 0,
    reads: 0,
    failFrom: undefined,
    loadPublications: async (dates) => {
      reader.reads += 1;
      if (reader.failFrom !== undefined && reader.reads >= reader.failFrom) throw new Error('made-up failure of the rates database');
      reader.read += dates.length;
      return inner.loadPublications(dates);
    },
  };
  return reader;
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000 && !(await condition()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await condition()).toBe(true);
}

/** Resolves once `value()` has not changed for `quietMs` (checked every 50 ms), with that value. */
async function settled(value: () => number, quietMs = 500): Promise<number> {
  let last = value();
  let since = performance.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = value();
    if (now !== last) [last, since] = [now, performance.now()];
    else if (performance.now() - since >= quietMs) return now;
  }
}

describe('series exports are streamed as their publications are read', () => {
  let t: TestApp;
  let key: string;
  const rates = countedRates(HISTORY);
  const { logger, lines: logged } = capturedLogger('debug');
  const linesOf = (requestId: string | null) => logged.filter((line) => line['requestId'] === requestId);

  beforeAll(async () => {
    t = await createTestApp({ KEY_RATE_LIMIT: '100000', EXPORTS_IN_FLIGHT: '1' }, { rates, clock: CLOCK, logger });
    key = await t.createKey('developer');
  });
  afterAll(() => t.close());

  const series = (query: string, headers: Record<string, string> = {}) =>
    t.fetch(`/v1/currency/rates/series?${query}`, { headers: { authorization: `Bearer ${key}`, ...headers } });

  /** A GET whose answer is read as it comes: its status and request id at once, its body's end (or cut) later. */
  const streamedGet = (target: string, headers: Record<string, string>) =>
    new Promise<{ status: number; requestId: string | null; body: Promise<string> }>((resolve, reject) => {
      const req = request(new URL(target, t.origin), { headers: { authorization: `Bearer ${key}`, ...headers }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        const body = new Promise<string>((ended, cut) => {
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => ended(Buffer.concat(chunks).toString()));
          res.on('error', cut);
        });
        body.catch(() => undefined);
        resolve({ status: res.statusCode!, requestId: (res.headers['x-request-id'] as string | undefined) ?? null, body });
      });
      req.on('error', reject);
      req.end();
    });

  it('sends an export larger than a chunk chunked, without Content-Length, every row once and in order', async () => {
    const res = await series('start=1999-01-01&symbols=XAA,XAB', { accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="ecb-rates-EUR-1999-01-04-2025-12-31.csv"');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const [header, ...rows] = (await res.text()).trimEnd().split('\r\n');
    expect(header).toBe('date,base,XAA,XAB');
    expect(rows.map((row) => row.slice(0, 10))).toEqual(HISTORY.map((pub) => pub.date));
    expect(rows.at(-1)).toBe(`2025-12-31,EUR,${HISTORY.at(-1)!.rates['XAA']},${HISTORY.at(-1)!.rates['XAB']}`);
    await until(() => linesOf(res.headers.get('x-request-id')).some((line) => line['msg'] === 'request'));
    expect(linesOf(res.headers.get('x-request-id')).filter((line) => line['msg'] === 'request')).toMatchObject([{ status: 200 }]);
  });

  it('reads no further than the client takes (backpressure), and stops reading when the client goes away: one log line, no error, the slot given back', async () => {
    const slices = Math.ceil(HISTORY.length / SLICE);
    const before = rates.read;
    const socket: Socket = connect(Number(new URL(t.origin).port), '127.0.0.1');
    const head = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
    socket.write(
      `GET /v1/currency/rates/series?start=1999-01-01 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: application/x-ndjson\r\n\r\n`,
    );
    const requestId = /x-request-id: (\S+)/i.exec(await head)?.[1] ?? null;
    socket.pause();
    // The client reads nothing more: once the socket's buffers are full, the export waits for 'drain'.
    const readWhilePaused = (await settled(() => rates.read, 1000)) - before;
    expect(readWhilePaused).toBeLessThan(HISTORY.length / 2);
    socket.destroy();
    // The slot (EXPORTS_IN_FLIGHT=1) comes back once the answer has closed.
    await until(async () => (await series('start=2025-12-01&end=2025-12-31&symbols=XAA', { accept: 'text/csv' })).status === 200);
    const readAfter = (await settled(() => rates.read, 1000)) - before;
    // The export did not go on to read the rest of the history once its client had gone (the one
    // small export since read a slice or two).
    expect(readAfter).toBeLessThan((slices - 4) * SLICE);
    await until(() => linesOf(requestId).some((line) => line['msg'] === 'request'));
    const lines = linesOf(requestId);
    expect(lines.filter((line) => line['msg'] === 'request')).toMatchObject([{ status: 200 }]);
    expect(lines.filter((line) => (line['level'] as number) >= 50)).toEqual([]);
  });

  it('cuts the connection when reading fails half-way: no 500 after the 200, a cut body, one error and one access-log line with INTERNAL', async () => {
    rates.failFrom = rates.reads + 8;
    try {
      const res = await streamedGet('/v1/currency/rates/series?start=1999-01-01&symbols=XAA,XAB,XAC', { accept: 'application/x-ndjson' });
      expect(res.status).toBe(200);
      const requestId = res.requestId;
      await expect(res.body).rejects.toThrow(/aborted/);
      await until(() => linesOf(requestId).some((line) => line['msg'] === 'request'));
      const lines = linesOf(requestId);
      expect(lines.filter((line) => line['msg'] === 'request')).toMatchObject([{ status: 200, code: 'INTERNAL' }]);
      expect(lines.filter((line) => (line['level'] as number) >= 50)).toMatchObject([{ msg: 'unexpected error in a streamed answer' }]);
    } finally {
      rates.failFrom = undefined;
    }
    await until(async () => (await series('start=2025-12-01&end=2025-12-31&symbols=XAA', { accept: 'text/csv' })).status === 200);
  });

  it('answers a matching If-None-Match with 304 before reading a single publication', async () => {
    const query = 'start=2020-01-01&end=2021-12-31&symbols=XAA,XAB';
    const first = await series(query, { accept: 'text/csv' });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('private, max-age=86400');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const text = await first.text();
    const reads = rates.reads;
    const again = await series(query, { accept: 'text/csv', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(rates.reads).toBe(reads);
    // Another format of the same page is another representation, with another validator.
    const ndjson = await series(query, { accept: 'application/x-ndjson', 'if-none-match': etag });
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers.get('etag')).not.toBe(etag);
    await ndjson.arrayBuffer();
    // The validator names the bytes: the same query written again gives the same text.
    expect(await (await series(query, { accept: 'text/csv' })).text()).toBe(text);
  });
  it('compresses a streamed export as it streams: gzip and Brotli decode to the identity body, with a coded ETag and Vary', async () => {
    const target = '/v1/currency/rates/series?start=1999-01-01&end=2025-12-31&symbols=XAA,XAB,XAC';
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        const req = request(
          new URL(target, t.origin),
          { headers: { authorization: `Bearer ${key}`, accept: 'text/csv', 'accept-encoding': encoding }, agent: false },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      });
    // The first asks gzip: computed and streamed through zlib. The others come from the export cache, whole.
    const streamedGzip = await raw('gzip');
    expect(streamedGzip.headers['transfer-encoding']).toBe('chunked');
    const identity = await raw('identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers['etag']).toMatch(/^"[^"]+"$/);
    for (const [coding, decode, coded] of [
      ['gzip', gunzipSync, streamedGzip],
      ['br', brotliDecompressSync, await raw('br')],
    ] as const) {
      expect(coded.headers['content-encoding']).toBe(coding);
      expect(coded.headers['vary']).toMatch(/Accept-Encoding/);
      expect(coded.headers['etag']).toBe(String(identity.headers['etag']).replace(/"$/, `-${coding}"`));
      expect(coded.body.length).toBeLessThan(identity.body.length / 2);
      expect(decode(coded.body).equals(identity.body)).toBe(true);
    }
  });
});

describe('the columns of a streamed export are the codes quoted in its range, whether or not the quote spans are computed yet', () => {
  /** Made-up: XGP is quoted in 2020 and 2024 only (as ISK was not quoted from 2008 to 2018), XNW from 2023 on. */
  const GAPPED = madeUpHistory()
    .filter((pub) => pub.date >= '2020-01-01')
    .map((pub) => {
      const year = pub.date.slice(0, 4);
      const rates: Record<string, string> = { XAA: pub.rates['XAA']! };
      if (year === '2020' || year === '2024') rates['XGP'] = '2.5';
      if (year >= '2023') rates['XNW'] = '7.25';
      return { date: pub.date, rates };
    });
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ KEY_RATE_LIMIT: '100000' }, { rates: tableRates(GAPPED), clock: CLOCK });
    key = await t.createKey('developer');
  });
  afterAll(() => t.close());
  const csv = (query: string) => t.call('GET', `/v1/currency/rates/series?${query}`, { key, headers: { accept: 'text/csv' } });

  it.each(['before', 'after'])(
    '%s the registry has folded the history: a range inside the gap has no XGP column, and asking for it is RATE_NOT_FOUND',
    async (when) => {
      if (when === 'after') {
        const reg = await t.call('GET', '/v1/currencies');
        expect(reg.status, reg.text).toBe(200);
      }
      const inGap = await csv('start=2021-01-01&end=2022-12-31');
      expect(inGap.status).toBe(200);
      expect(inGap.text.slice(0, inGap.text.indexOf('\r\n'))).toBe('date,base,XAA');
      const across = await csv('start=2022-06-01&end=2024-12-31');
      // In the order first quoted in the range: XAA, then XNW (2023), then XGP (2024).
      expect(across.text.slice(0, across.text.indexOf('\r\n'))).toBe('date,base,XAA,XNW,XGP');
      const asked = await csv('start=2021-01-01&end=2022-12-31&symbols=XGP');
      expect(asked.status, asked.text).toBe(404);
      expect(asked.body.error).toMatchObject({ code: 'RATE_NOT_FOUND', param: 'symbols' });
    },
  );
});
