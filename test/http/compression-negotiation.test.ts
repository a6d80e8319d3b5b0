import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptedCoding, compressChunks, createCompression, isCompressible, type CodingRequest } from '../../src/http/answer/compression';
import type { ResponseParts } from '../../src/http/answer/answer-parts';
import { etagMatches } from '../../src/http/answer/shared-resource';
import { mergeVary } from '../../src/http/answer/vary';

describe('acceptedCoding: the coding an Accept-Encoding header asks for (RFC 9110 12.5.3)', () => {
  it.each([
    [null, 'identity'],
    ['', 'identity'],
    ['identity', 'identity'],
    ['deflate', 'identity'],
    ['zstd, deflate', 'identity'],
    ['gzip', 'gzip'],
    ['x-gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=1.000, gzip;q=1', 'br'],
    ['gzip;q=0.8', 'gzip'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0.2', 'gzip'],
    ['*;q=0', 'identity'],
    ['*;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, identity', 'identity'],
    ['gzip, identity;q=0', 'gzip'],
    ['identity;q=0', 'identity'],
    ['br ; q=0.7 , gzip ; q=0.9', 'gzip'],
    ['gzip;q=abc', 'identity'],
    ['gzip;q=2', 'identity'],
    ['gzip;q=-1', 'identity'],
    ['gzip;q=0.1234', 'identity'],
    ['gzip;level=9', 'identity'],
    ['br;q', 'identity'],
    [';;;,,,;q=1', 'identity'],
    ['gzip;q=0.5, br;q=abc', 'gzip'],
  ])('%j → %s', (header, coding) => {
    expect(acceptedCoding(header)).toBe(coding);
  });

  it('reads at most 32 elements of a huge header: a coding named past them is not seen', () => {
    expect(acceptedCoding(`${'deflate, '.repeat(31)}br`)).toBe('br');
    expect(acceptedCoding(`${'deflate, '.repeat(40)}br`)).toBe('identity');
    expect(acceptedCoding(`${'x'.repeat(1_000_000)}, gzip`)).toBe('gzip');
  });
});

describe('isCompressible: text types, never an event stream', () => {
  it.each([
    ['application/json; charset=utf-8', true],
    ['application/graphql-response+json; charset=utf-8', true],
    ['application/problem+json', true],
    ['application/x-ndjson; charset=utf-8', true],
    ['text/csv; charset=utf-8; header=present', true],
    ['text/html; charset=utf-8', true],
    ['text/css', true],
    ['text/javascript', true],
    ['application/javascript', true],
    ['image/svg+xml', true],
    ['text/plain; version=0.0.4', true],
    ['text/event-stream', false],
    ['image/png', false],
    ['font/woff2', false],
    ['application/octet-stream', false],
    ['application/jsonx', false],
    [undefined, false],
  ])('%s → %s', (type, expected) => {
    expect(isCompressible(type)).toBe(expected);
  });
});

describe('validators per coding', () => {
  it('If-None-Match matches the identity ETag and the coded ones of the same content, nothing else', () => {
    const etag = '"abc-br"';
    expect(etagMatches('"abc-br"', etag)).toBe(true);
    expect(etagMatches('"abc-br-gzip"', etag)).toBe(true);
    expect(etagMatches('W/"abc-br-br"', etag)).toBe(true);
    expect(etagMatches('"abc"', etag)).toBe(false);
    expect(etagMatches('"abc-br-deflate"', etag)).toBe(false);
    expect(etagMatches('"abc-br-gzip-br"', etag)).toBe(false);
  });

  const compress = createCompression();
  const notModified = (headers: Record<string, string>): ResponseParts => ({ status: 304, headers, body: null });
  const request = (acceptEncoding: string | null, ifNoneMatch: string | null, method = 'GET'): CodingRequest => ({
    method,
    acceptEncoding,
    ifNoneMatch,
  });

  it.each([
    ['"x", "x-gzip"', 'gzip', '"x-gzip"'],
    ['"x", "x-gzip"', 'br', '"x"'],
    ['"x-br"', 'gzip', '"x-br"'],
    ['"x-br", "x-gzip"', 'identity', '"x-br"'],
    ['*', 'br', '"x"'],
  ])(
    'a 304 to If-None-Match %s asking for %s names %s, varies on Accept-Encoding and states no length',
    async (ifNoneMatch, acceptEncoding, named) => {
      const answer = await compress(
        request(acceptEncoding, ifNoneMatch),
        notModified({ etag: '"x"', vary: 'Accept', 'content-length': '5000' }),
      );
      expect(answer.headers).toEqual({ etag: named, vary: 'Accept, Accept-Encoding' });
    },
  );

  it('leaves a 304 of a type never compressed as it is', async () => {
    const headers = { etag: '"x"', 'content-type': 'font/woff2' };
    expect((await compress(request('br', '"x"'), notModified({ ...headers }))).headers).toEqual(headers);
  });
});

describe('the compression step', () => {
  const compress = createCompression();
  const big = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `made-up entry ${i}` })) });
  const answer = (status: number, headers: Record<string, string>, body: ResponseParts['body']): ResponseParts => ({
    status,
    headers,
    body,
  });
  const json = () => ({ 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(big)), etag: '"e"' });

  it('never encodes twice, nor a 204, nor a type never compressed', async () => {
    const encoded = answer(200, { ...json(), 'content-encoding': 'br' }, Buffer.from('already'));
    expect(await compress({ method: 'GET', acceptEncoding: 'gzip', ifNoneMatch: null }, encoded)).toBe(encoded);
    expect((await compress({ method: 'GET', acceptEncoding: 'gzip', ifNoneMatch: null }, answer(204, {}, null))).headers).toEqual({});
    const png = answer(200, { 'content-type': 'image/png', 'content-length': '5000' }, Buffer.alloc(5000));
    expect((await compress({ method: 'GET', acceptEncoding: 'gzip', ifNoneMatch: null }, png)).headers).toEqual({
      'content-type': 'image/png',
      'content-length': '5000',
    });
  });

  it('encodes a body of 1 KiB or more with its length and validator, and merges Vary once', async () => {
    const out = await compress(
      { method: 'GET', acceptEncoding: 'gzip', ifNoneMatch: null },
      answer(200, { ...json(), vary: 'accept-encoding, Accept' }, big),
    );
    expect(out.headers['content-encoding']).toBe('gzip');
    expect(out.headers['etag']).toBe('"e-gzip"');
    expect(out.headers['vary']).toBe('accept-encoding, Accept');
    expect(Number(out.headers['content-length'])).toBe((out.body as Buffer).length);
    expect(gunzipSync(out.body as Buffer).toString()).toBe(big);
  });

  it('on HEAD gives the headers of GET without encoding a body; a pre-built body is encoded once and its length given', async () => {
    const head = await compress({ method: 'HEAD', acceptEncoding: 'br', ifNoneMatch: null }, answer(200, json(), big));
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.headers['content-length']).toBeUndefined();
    expect(head.body).toBe(big);
    const bytes = Buffer.from(big);
    const prebuilt = () => ({ ...answer(200, json(), bytes), prebuilt: true });
    const get = await compress({ method: 'GET', acceptEncoding: 'br', ifNoneMatch: null }, prebuilt());
    const again = await compress({ method: 'GET', acceptEncoding: 'br', ifNoneMatch: null }, prebuilt());
    expect(again.body).toBe(get.body);
    const prebuiltHead = await compress({ method: 'HEAD', acceptEncoding: 'br', ifNoneMatch: null }, prebuilt());
    expect(prebuiltHead.headers['content-length']).toBe(String((get.body as Buffer).length));
    expect(brotliDecompressSync(get.body as Buffer).toString()).toBe(big);
  });
});

describe('compressChunks: a streamed body through a zlib stream', () => {
  /** A made-up export: NDJSON lines produced one by one, strings and bytes mixed. */
  async function* madeUpLines(count: number): AsyncGenerator<string | Uint8Array> {
    for (let i = 0; i < count; i++) {
      const line = `{"period":"made-up-${i}","rates":{"AAA":"1.${i}"}}\n`;
      yield i % 2 === 0 ? line : new TextEncoder().encode(line);
      if (i % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const expected = Array.from({ length: 2000 }, (_, i) => `{"period":"made-up-${i}","rates":{"AAA":"1.${i}"}}\n`).join('');
  const collect = async (chunks: AsyncIterable<Buffer>) => {
    const parts: Buffer[] = [];
    for await (const chunk of chunks) parts.push(chunk);
    return Buffer.concat(parts);
  };

  it.each([
    ['gzip', gunzipSync],
    ['br', brotliDecompressSync],
  ] as const)('in %s decodes to the chunks joined', async (coding, decode) => {
    const encoded = await collect(compressChunks(madeUpLines(2000), coding));
    expect(encoded.length).toBeLessThan(expected.length / 3);
    expect(decode(encoded).toString()).toBe(expected);
  });

  /** The window a Brotli stream declares in its first bits (RFC 7932 9.1), read least significant bit first. */
  const brotliWindowBits = (stream: Buffer): number => {
    const byte = stream[0]!;
    if ((byte & 1) === 0) return 16;
    const n = (byte >> 1) & 7;
    if (n !== 0) return 17 + n;
    const m = (byte >> 4) & 7;
    return m === 0 ? 17 : 8 + m;
  };

  it('streams Brotli with a window of 2^18 bytes: a stream held open by a slow reader keeps a few MB, not the 16 MB of the default 2^22', async () => {
    const encoded = await collect(compressChunks(madeUpLines(2000), 'br'));
    expect(brotliWindowBits(encoded)).toBe(18);
    // The same reader on a whole body at the default window declares 22: the check reads what it means to.
    expect(brotliWindowBits(brotliCompressSync(Buffer.from(expected)))).toBe(22);
  });

  it('fails when its source fails', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield 'a line\n';
      throw new Error('made-up source failure');
    }
    await expect(collect(compressChunks(failing(), 'gzip'))).rejects.toThrow('made-up source failure');
  });

  it('is what the step sends for a streamed body: no length, the coding named', async () => {
    const out = await createCompression()(
      { method: 'GET', acceptEncoding: 'gzip', ifNoneMatch: null },
      { status: 200, headers: { 'content-type': 'application/x-ndjson; charset=utf-8' }, body: madeUpLines(2000) },
    );
    expect(out.headers).toEqual({
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-encoding': 'gzip',
      vary: 'Accept-Encoding',
    });
    expect(gunzipSync(await collect(out.body as AsyncIterable<Buffer>)).toString()).toBe(expected);
  });
});

describe('mergeVary', () => {
  it.each([
    [undefined, ['Accept-Encoding'], 'Accept-Encoding'],
    ['Accept', ['Accept-Encoding'], 'Accept, Accept-Encoding'],
    ['Accept, accept-encoding', ['Accept-Encoding'], 'Accept, accept-encoding'],
    ['*', ['Accept-Encoding'], '*'],
    ['Accept-Language', ['Accept', 'Accept', 'Authorization'], 'Accept-Language, Accept, Authorization'],
  ])('%j + %j → %j', (vary, names, merged) => {
    expect(mergeVary(vary, names)).toBe(merged);
  });
});
