import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

type Json = Record<string, any>;

/**
 * Checks real responses against the served OpenAPI document: the path and method exist, the
 * status is documented for it, the declared headers are sent, and the JSON body validates.
 * HEAD is checked against the path's GET (same status and headers, no body). Unknown paths and
 * wrong methods (404/405 outside any operation) must still be ErrorResponses, a 405 with an
 * `Allow` listing exactly the path's methods.
 */
export class OpenApiContract {
  private static readonly byText = new Map<string, OpenApiContract>();
  private readonly ajv: Ajv2020;
  private readonly paths: { pattern: RegExp; item: Json }[];
  /** Each schema compiled once, by its text: Ajv caches by object, and every check rewrites its schema anew. */
  private readonly validators = new Map<string, ValidateFunction>();

  /** One contract per document text in this process, so its validators are compiled once for every app built on it. */
  static of(text: string): OpenApiContract {
    let contract = OpenApiContract.byText.get(text);
    if (!contract) {
      contract = new OpenApiContract(JSON.parse(text) as Json);
      OpenApiContract.byText.set(text, contract);
    }
    return contract;
  }

  constructor(private readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    (addFormats as unknown as (ajv: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
    this.paths = Object.entries(document.paths as Json).map(([path, item]) => ({
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      item: item as Json,
    }));
  }

  async check(method: string, url: string, response: Response): Promise<void> {
    const { pathname } = new URL(url, 'http://localhost');
    const where = `${method} ${pathname} → ${response.status}`;
    const head = method.toUpperCase() === 'HEAD';
    if (head) expect(await response.clone().text(), `${where}: a HEAD answer has no body`).toBe('');
    const mediaType = response.headers.get('content-type')?.split(';')[0]!.trim();
    const body = !head && mediaType === 'application/json' ? await response.clone().json() : undefined;
    const item = this.paths.find((p) => p.pattern.test(pathname))?.item;
    const operation = item?.[head ? 'get' : method.toLowerCase()] as Json | undefined;
    if (!operation && method.toUpperCase() === 'OPTIONS' && response.status === 204) {
      // A CORS preflight: documented in the path's description, not as an operation (generators would make a method of it).
      expect(String(item?.['description']), `${where}: the path documents its preflight`).toContain(
        "OPTIONS answers a browser's CORS preflight with 204",
      );
      expect(await response.clone().text(), `${where}: a preflight has no body`).toBe('');
      return;
    }
    if (!operation) {
      expect([404, 405], `${where}: no operation documents this request`).toContain(response.status);
      if (response.status === 405) expect(response.headers.get('allow')?.split(', ').sort(), `${where}: Allow`).toEqual(methodsOf(item!));
      if (!head) this.validate({ $ref: 'openapi.json#/components/schemas/ErrorResponse' }, body, where);
      return;
    }
    const found = operation.responses[String(response.status)] as Json | undefined;
    const other = (found?.['x-other-formats'] as Record<string, string> | undefined)?.[mediaType ?? ''];
    // A media type the path answers by Accept but another operation describes (x-other-formats): its content is that operation's.
    const documented =
      other === undefined ? found : { ...found, content: this.operationById(other).responses[String(response.status)]?.content };
    expect(documented, `${where}: status not documented`).toBeDefined();
    for (const [name, header] of Object.entries<Json>(documented!.headers ?? {})) {
      const definition = header.$ref ? this.resolve(header.$ref) : header;
      const value = response.headers.get(name);
      if (definition.required) expect(value, `${where}: required header ${name} missing`).not.toBeNull();
      if (value !== null && definition.schema) this.validate(rewriteRefs(definition.schema), value, `${where} header ${name}`);
    }
    if (documented!.content && mediaType !== undefined)
      expect(Object.keys(documented!.content), `${where}: media type ${mediaType} not documented`).toContain(mediaType);
    const schema = documented!.content?.['application/json']?.schema as Json | undefined;
    if (schema && !head && mediaType === 'application/json') this.validate(rewriteRefs(schema), body, where);
  }

  private operationById(id: string): Json {
    for (const item of Object.values<Json>(this.document.paths)) {
      for (const operation of Object.values<Json>(item))
        if (typeof operation === 'object' && operation.operationId === id) return operation;
    }
    throw new Error(`x-other-formats names ${id}, which no operation is`);
  }

  private resolve(ref: string): Json {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((node, key) => node[key], this.document);
  }

  private validate(schema: Json, body: unknown, where: string): void {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.validators.set(key, validate);
    }
    const ok = validate(body);
    expect(
      ok,
      `${where}: body does not match the OpenAPI document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
    ).toBe(true);
  }
}

/**
 * The methods a path answers, as its description says them (`Allow: GET, HEAD, OPTIONS`): HEAD and
 * the CORS preflight are no operations. Each of its operations must be among them.
 */
function methodsOf(item: Json): string[] {
  const said = /`Allow: ([A-Z, ]+)`/.exec(String(item['description']))?.[1]?.split(', ') ?? [];
  const operations = ['get', 'post', 'put', 'patch', 'delete'].filter((m) => m in item).map((m) => m.toUpperCase());
  expect(said, 'the path says its methods').toEqual(expect.arrayContaining(operations));
  return said.sort();
}

function rewriteRefs(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `openapi.json${v}` : rewriteRefs(v)]),
  );
}
