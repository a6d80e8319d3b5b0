import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

type Json = Record<string, any>;

/**
 * Checks real responses against the served OpenAPI document: the path and method exist, the
 * status is documented for it, the declared headers are sent, and the JSON body validates.
 * Unknown paths and wrong methods (404/405 outside any operation) must still be ErrorResponses.
 */
export class OpenApiContract {
  private readonly ajv: Ajv2020;
  private readonly paths: { pattern: RegExp; item: Json }[];

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
    const body = response.headers.get('content-type')?.includes('json') ? await response.clone().json() : undefined;
    const operation = this.paths.find((p) => p.pattern.test(pathname))?.item[method.toLowerCase()] as Json | undefined;
    if (!operation) {
      expect([404, 405], `${where}: no operation documents this request`).toContain(response.status);
      this.validate({ $ref: 'openapi.json#/components/schemas/ErrorResponse' }, body, where);
      return;
    }
    const documented = operation.responses[String(response.status)] as Json | undefined;
    expect(documented, `${where}: status not documented`).toBeDefined();
    for (const [name, header] of Object.entries<Json>(documented!.headers ?? {})) {
      const definition = header.$ref ? this.resolve(header.$ref) : header;
      const value = response.headers.get(name);
      if (definition.required) expect(value, `${where}: required header ${name} missing`).not.toBeNull();
      if (value !== null && definition.schema) this.validate(rewriteRefs(definition.schema), value, `${where} header ${name}`);
    }
    const schema = documented!.content?.['application/json']?.schema as Json | undefined;
    if (schema) this.validate(rewriteRefs(schema), body, where);
  }

  private resolve(ref: string): Json {
    return ref.replace(/^#\//, '').split('/').reduce<Json>((node, key) => node[key], this.document);
  }

  private validate(schema: Json, body: unknown, where: string): void {
    const validate = this.ajv.compile(schema);
    const ok = validate(body);
    expect(ok, `${where}: body does not match the OpenAPI document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`).toBe(true);
  }
}

function rewriteRefs(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? `openapi.json${v}` : rewriteRefs(v)]),
  );
}
