import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes';
import { createHostileApp, show, type HostileApp } from './harness';
import { requestOf, type RestRequest } from './rest-requests';

/**
 * The hostile REST requests, sent through the served OpenAPI document first, as a validating client
 * or proxy would: every request the document allows goes to the server, and none may come back
 * INVALID_REQUEST for an input the document describes (a bound the document left out). Refusals the
 * document cannot state (a temperature below absolute zero) are not bounds and are left aside.
 */
type Json = Record<string, any>;

/** Per route: most hostile requests are refused by the document itself and never sent. */
const SAMPLES = 400;
/**
 * What JSON Schema does not say: a value's meaning and whether the catalogue knows it, not its shape;
 * and relations between inputs (a range's order, a cursor belonging to its own query); a unit
 * expression's grammar (its length is a bound, and stays one); a date where no currency occurs.
 */
const NOT_A_BOUND =
  /absolute zero|reciprocal unit|does not exist|must not be before start|not a cursor of this series|is not a valid unit expression: (?!it is longer)/;

let h: HostileApp;
let documentCheck: DocumentCheck;
beforeAll(async () => {
  h = await createHostileApp();
  documentCheck = new DocumentCheck((await h.t.call('GET', '/openapi.json')).body);
});
afterAll(() => h.t.close());

/** Whether the document allows a request: its operation, path and query parameters, and JSON body, validated with ajv. */
class DocumentCheck {
  private readonly ajv = new Ajv2020({ strict: false });
  private readonly compiled = new Map<object, ValidateFunction>();
  private readonly paths: { pattern: RegExp; names: string[]; item: Json }[];

  constructor(private readonly document: Json) {
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: document['components'] });
    this.paths = Object.entries(document['paths'] as Json).map(([path, item]) => ({
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '([^/]+)')}$`),
      names: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
      item,
    }));
  }

  /** The operation the request is for and the inputs it names, or undefined when the document does not allow it. */
  allows(request: RestRequest): { inputs: Set<string> } | undefined {
    const [target, fragment] = splitOnce(request.url, '#');
    if (fragment !== undefined) return undefined;
    const [path, query = ''] = splitOnce(target, '?');
    const found = this.paths.map((p) => ({ p, match: p.pattern.exec(path) })).find((x) => x.match);
    const operation = found?.p.item[request.method.toLowerCase()] as Json | undefined;
    if (!found || !operation || operation['summary'] === 'CORS preflight') return undefined;
    const parameters = (operation['parameters'] ?? []) as Json[];
    const inputs = new Set(parameters.map((p) => p['name'] as string));
    for (const [i, name] of found.p.names.entries()) {
      const text = decoded(found.match![i + 1]!);
      const parameter = parameters.find((p) => p['in'] === 'path' && p['name'] === name);
      if (text === undefined || !parameter || !this.valid(parameter['schema'], text)) return undefined;
    }
    if (
      !this.queryAllowed(
        query,
        parameters.filter((p) => p['in'] === 'query'),
      )
    )
      return undefined;
    const body = operation['requestBody']?.content?.['application/json']?.schema as Json | undefined;
    if (body) {
      if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(request.rawBody ?? '');
      } catch {
        return undefined;
      }
      if (!this.valid(body, parsed)) return undefined;
      for (const name of Object.keys(body['properties'] ?? {})) inputs.add(name);
    }
    return { inputs };
  }

  /** Form-style query parameters: each documented, sent once, non-empty as its schema says; an integer written as digits. */
  private queryAllowed(query: string, parameters: Json[]): boolean {
    const search = new URLSearchParams(query);
    const names = [...search.keys()];
    if (new Set(names).size !== names.length) return false;
    for (const name of names) {
      const parameter = parameters.find((p) => p['name'] === name);
      if (!parameter) return false;
      const text = search.get(name)!;
      const schema = this.resolved(parameter['schema']);
      const value = schema['type'] === 'integer' ? (/^-?\d+$/.test(text) ? Number(text) : undefined) : text;
      if (value === undefined || !this.valid(parameter['schema'], value)) return false;
    }
    return parameters.every((p) => !p['required'] || names.includes(p['name']));
  }

  private resolved(schema: Json): Json {
    const ref = schema['$ref'] as string | undefined;
    return ref
      ? ref
          .replace(/^#\//, '')
          .split('/')
          .reduce<Json>((node, key) => node[key], this.document)
      : schema;
  }

  private valid(schema: Json, value: unknown): boolean {
    let validate = this.compiled.get(schema);
    if (!validate) this.compiled.set(schema, (validate = this.ajv.compile(rewriteRefs(schema))));
    return validate(value) as boolean;
  }
}

/** The input an INVALID_REQUEST blames, in the answer or in any batch item's error. */
function boundRefusals(status: number, body: any): { param: string; message: string }[] {
  const errors = status === 400 ? [body?.error] : ((body?.data?.results ?? []) as any[]).map((r) => r.error);
  return errors.filter((e) => e?.code === 'INVALID_REQUEST' && typeof e.param === 'string' && !NOT_A_BOUND.test(e.message));
}

// A signed link's route: every input is part of the link and signed, so no generated request is one the server made.
describe.each(
  ROUTES.filter((r) => r.field !== undefined && !r.signedLink).map((route) => [`${route.method} ${route.path}`, route] as const),
)('%s: the document and the server agree', (_, route) => {
  it('no request the document allows is refused by the server for a bound on an input the document describes', async () => {
    const requests = fc.sample(requestOf(route, h.key, h.key), { numRuns: SAMPLES, seed: 28 });
    const disagreements: string[] = [];
    let sent = 0;
    for (const request of requests) {
      const allowed = documentCheck.allows(request);
      if (!allowed) continue;
      sent += 1;
      const res = await h.t.call(request.method, request.url, {
        headers: request.headers,
        ...(request.rawBody === undefined ? {} : { rawBody: request.rawBody }),
      });
      for (const refusal of boundRefusals(res.status, res.body)) {
        const input = refusal.param.replace(/^items\[\d+\]\.?/, '') || 'items';
        if (allowed.inputs.has(input) || allowed.inputs.has('items'))
          disagreements.push(`${request.method} ${show(request.url)} body ${show(request.rawBody)} → ${refusal.param}: ${refusal.message}`);
      }
    }
    expect(disagreements).toEqual([]);
    // Not vacuous: a good share of the sample was allowed by the document and reached the server.
    expect(sent, `${sent} of ${SAMPLES} allowed`).toBeGreaterThan(SAMPLES / 10);
  });
});

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function rewriteRefs(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `openapi.json${v}` : rewriteRefs(v)]),
  );
}
