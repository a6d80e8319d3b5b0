import fc from 'fast-check';
import { schema } from '../../src/graphql';
import type { RestRoute } from '../../src/http/routes';
import { fieldArgs, hostileObject } from './arguments';
import { applyDamage, authorization, contentType, damage } from './transport';
import { PROTOTYPE_KEYS, hostileText, jsonText } from './values';

/** Hostile REST requests of one route: its methods, paths, query strings, headers and bodies. */
export interface RestRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  rawBody?: string;
}

const argNames = (route: RestRoute): string[] =>
  route.field === undefined
    ? []
    : schema
        .getQueryType()!
        .getFields()
        [route.field]!.args.map((a) => a.name);
/** The arguments the path fills (`:unit` fills `id`). */
const argOfPath = (route: RestRoute, name: string): string => route.pathArgs?.[name] ?? name;
const pathNames = (route: RestRoute): string[] => [...route.path.matchAll(/:([a-z]+)/g)].map((m) => argOfPath(route, m[1]!));

/** Lone surrogates made well-formed, so that encodeURIComponent does not throw on them. */
const encode = (text: string) => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));

/** Path parameters percent-encoded, or inserted raw (slashes, dots, `%`, `?` and `#` then do what they do). */
function pathOf(route: RestRoute): fc.Arbitrary<string> {
  const names = pathNames(route);
  return fc.tuple(fieldArgs(route.field ?? '', names, 'text'), fc.constantFrom('encoded', 'raw')).map(([entries, how]) => {
    const params = new Map(entries);
    return route.path.replace(/:([a-z]+)/g, (_, name: string) => {
      const text = String(params.get(argOfPath(route, name)) ?? '');
      return how === 'encoded' ? encode(text) : text;
    });
  });
}

/** The route's arguments (valid, hostile, missing), unknown and repeated names; encoded, or written raw. */
function queryOf(route: RestRoute): fc.Arbitrary<string> {
  const names = argNames(route).filter((name) => !pathNames(route).includes(name));
  const extra = fc.array(
    fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, ...names, 'x', 'key', 'api_key', 'VALUE', 'value[]', 'from.x', '', '%zz'), hostileText),
    {
      minLength: 1,
      maxLength: 2,
    },
  );
  const pairs = fc
    .tuple(
      route.method === 'GET' ? fieldArgs(route.field ?? '', names, 'text') : fc.constant([]),
      fc.oneof({ weight: 6, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extra }),
    )
    .map(([present, extras]) => [...present, ...extras].map(([k, v]) => [k, String(v)] as [string, string]));
  const query = fc.tuple(pairs, fc.constantFrom('encoded', 'encoded', 'raw', 'bare')).map(([list, how]) => {
    if (how === 'bare') return '?';
    const text = how === 'encoded' ? new URLSearchParams(list).toString() : list.map(([k, v]) => `${k}=${v}`).join('&');
    return text === '' ? '' : `?${text}`;
  });
  // A POST route takes no query string: send one now and then.
  return route.method === 'GET' ? query : fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: query });
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'];
const EXTRA_HEADERS: [string, string][] = [
  ['if-none-match', '*'],
  ['if-none-match', 'W/"x", "y"'],
  ['if-none-match', 'x'.repeat(10_000)],
  ['accept', 'text/html'],
  ['x-forwarded-for', '203.0.113.9, garbage'],
  ['origin', 'https://evil.example'],
  ['content-length', '5'],
];

export function requestOf(route: RestRoute, key: string, freeKey: string): fc.Arbitrary<RestRequest> {
  const method = fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) });
  const body = fc
    .tuple(hostileObject(route.field ?? '', argNames(route)), damage)
    .map(([object, how]) => applyDamage(jsonText(object), how));
  const extraHeader = fc.option(fc.constantFrom(...EXTRA_HEADERS), { freq: 6, nil: undefined });
  return fc
    .record({ method, path: pathOf(route), query: queryOf(route), auth: authorization(key, freeKey), type: contentType, body, extraHeader })
    .map(({ method, path, query, auth, type, body, extraHeader }) => {
      const headers: Record<string, string> = {};
      if (auth !== undefined) headers['authorization'] = auth;
      if (type !== undefined && method !== 'GET') headers['content-type'] = type;
      if (extraHeader) headers[extraHeader[0]] = extraHeader[1];
      const withBody = method !== 'GET' && method !== 'HEAD';
      return { method, url: path + query, headers, ...(withBody ? { rawBody: body } : {}) };
    });
}
