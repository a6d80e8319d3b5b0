/**
 * The per-request work of the node:http front (src/http/front/node-server.ts) is cheap: the path without
 * a URL object for ordinary targets, the route label without decoding, the metrics without hashing
 * a label object. These tests prove each gives exactly what the code before it gave: the reference
 * implementations below are that code, copied.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pathOf } from '../../src/http/front/target';
import { matchPath, ROUTES, routeLabel } from '../../src/http/routes';

/** Before: a URL object per request. */
function referencePathOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://localhost').pathname;
  } catch {
    return '';
  }
}

/** Before: the full match (decoding the parameters), then a regex replace. */
function referenceRouteLabel(pathname: string): string {
  const match = matchPath(pathname);
  if (match) return match.routes[0]!.path.replace(/:([a-z]+)/g, '{$1}');
  if (pathname === '/graphql') return 'graphql';
  if (pathname === '/account' || pathname.startsWith('/account/')) return 'account';
  if (pathname === '/metrics') return 'metrics';
  if (pathname === '/') return 'home';
  if (pathname === '/docs' || pathname.startsWith('/docs/assets/')) return 'docs';
  return 'other';
}

const TABLE_PATHS = ROUTES.map((r) => r.path.replace(/:([a-z]+)/g, 'x'));

/** Request targets: mostly near the app's own paths, with the characters URL parsing treats specially. */
const target = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        ...TABLE_PATHS,
        '/graphql',
        '/account',
        '/account/keys',
        '/metrics',
        '/',
        '',
        '/v1',
        '/v1/units/',
        '/openapiXjson',
        '/v1/units/meter',
        '/docs',
        '/docs/assets/',
      ),
      fc.array(
        fc.constantFrom(
          '/',
          '.',
          '..',
          '%2e',
          '%2E',
          '%2',
          '%',
          '%zz',
          '%41',
          'meter',
          'm²',
          'é',
          ' ',
          '\\',
          '\t',
          '\n',
          '?',
          '#',
          '?a=1',
          '#f',
          '//',
          ':',
          '@',
          '*',
          '"',
          '<',
          '>',
          '`',
          '{',
          '}',
          '|',
          '^',
          '[',
          ']',
          "'",
          '\u0000',
          '\u007f',
          '~',
          ';',
          '=',
          '&',
        ),
        { maxLength: 6 },
      ),
    )
    .map(([path, parts]) => path + parts.join('')),
  fc.constantFrom(
    '*',
    'http://example.com/v1/units/meter',
    'http://localhost/metrics?x',
    '//example.com/metrics',
    'v1/units',
    ' /metrics',
    '/metrics ',
    '/v1/units/../metrics',
    '/v1/%2e%2E/metrics',
    '/a/./b',
    '/.',
    '/..',
    '/v1/units/.%2e',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }).map((s) => `/${s}`),
  fc.string({ unit: 'binary', maxLength: 24 }),
);

describe('the request path (pathOf)', () => {
  it('is what new URL() gives for every target, ordinary or not', () => {
    fc.assert(
      fc.property(target, (url) => {
        expect(pathOf(url)).toBe(referencePathOf(url));
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 20_000) },
    );
    for (const url of [
      undefined,
      '',
      '/',
      '/v1/units/meter?x=1',
      '/v1/convert?value=1&from=m&to=ft',
      '/metrics#x',
      '/a//b',
      '/a/.b',
      '/a/b.',
      '/openapi.json',
    ]) {
      expect(pathOf(url)).toBe(referencePathOf(url));
    }
  });

  it('cuts an ordinary origin-form target without new URL()', () => {
    const original = globalThis.URL;
    let made = 0;
    globalThis.URL = class extends original {
      constructor(...args: ConstructorParameters<typeof URL>) {
        super(...args);
        made += 1;
      }
    } as typeof URL;
    try {
      expect(pathOf('/v1/convert?value=12.5&from=in&to=cm')).toBe('/v1/convert');
      expect(pathOf('/v1/units/meter')).toBe('/v1/units/meter');
      expect(made).toBe(0);
      expect(pathOf('/v1/units/../../metrics')).toBe('/metrics');
      expect(made).toBe(1);
    } finally {
      globalThis.URL = original;
    }
  });
});

describe('the route label (routeLabel)', () => {
  it('is what the full match and replace gave, for every path', () => {
    fc.assert(
      fc.property(target, (url) => {
        const pathname = referencePathOf(url);
        expect(routeLabel(pathname)).toBe(referenceRouteLabel(pathname));
        expect(routeLabel(url)).toBe(referenceRouteLabel(url));
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 20_000) },
    );
  });

  it('names every route of the table by its template, and nothing else by a raw path', () => {
    const cases: [string, string][] = [
      ['/v1/units/meter', '/v1/units/{unit}'],
      ['/v1/units/%E2%82%AC', '/v1/units/{unit}'],
      ['/v1/units/%zz', '/v1/units/{unit}'],
      ['/v1/units', '/v1/units'],
      ['/v1/units/', 'other'],
      ['/v1/categories/length', '/v1/categories/{category}'],
      ['/v1/currency/rates/latest', '/v1/currency/rates/latest'],
      ['/v1/currency/rates', '/v1/currency/rates'],
      ['/openapi.json', '/openapi.json'],
      ['/openapiXjson', 'other'],
      ['/v1/currency/rates/series.csv', '/v1/currency/rates/series.csv'],
      ['/v1/currency/rates/seriesXcsv', 'other'],
      ['/graphql', 'graphql'],
      ['/account/keys/1', 'account'],
      ['/accounts', 'other'],
      ['/metrics', 'metrics'],
      ['/', 'home'],
      ['/docs', 'docs'],
      ['/docs/assets/front.0123456789abcdef.css', 'docs'],
      ['/docsx', 'other'],
      ['', 'other'],
    ];
    for (const [pathname, label] of cases) {
      expect(routeLabel(pathname)).toBe(label);
      expect(referenceRouteLabel(pathname)).toBe(label);
    }
  });
});
