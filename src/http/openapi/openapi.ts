import { getNamedType, isListType, isNonNullType, isObjectType, isUnionType, type GraphQLOutputType, type GraphQLSchema } from 'graphql';
import { useSofa } from 'sofa-api';
import { SCALAR_JSON_SCHEMAS } from '../../graphql/scalars';
import { restOmittedCoordinates } from '../../graphql/serialize';
import { everyObjectType } from '../../graphql/object-types';
import { API_TITLE, API_VERSION } from '../../version';
import { COMPLETE_CACHE_CONTROL } from '../answer/answer-formats';
import { withSignedLinks } from './openapi-links';
import { SERIES_EXPORT_PATH, SIGNED_EXPORT_PATH } from '../../services/series-links';
import {
  errorResponsesOf,
  ETAG_HEADER,
  REQUEST_ID_HEADER,
  LANGUAGE_HEADERS,
  OPENAPI_COMPONENTS,
  QUOTA_HEADERS,
  RATE_LIMIT_HEADERS,
  VARY_ACCEPT_HEADER,
  VARY_ENCODING_HEADER,
} from './openapi-components';
import { closedSetMembers, describedEnums, exclusiveBatchBranches, namedEnums, requiredMembers, WIRE_ENUMS } from './openapi-types';
import { withResponseExamples, withoutScalarSamples } from './openapi-examples';
import { boundedBody, boundedInputComponents, boundedParameter, exampleRequest } from './openapi-inputs';
import {
  allowedMethods,
  cacheControl,
  fieldRoute,
  formatRoutes,
  openApiPath,
  pathParamOf,
  ROUTES,
  sofaPath,
  sofaRoutes,
  variesOnAccept,
  type ExportFormat,
  type RestRoute,
} from '../routes';
import { preflightParts, SHARED_CORS_HEADERS } from '../answer/shared-resource';

type Json = Record<string, unknown>;

/** SOFA's own OpenAPI 3.0 document of the schema, before post-processing. */
function sofaOpenApi(schema: GraphQLSchema): Json {
  const router = useSofa({
    basePath: '/v1',
    schema,
    routes: sofaRoutes(),
    customScalars: freshOnEachRead(SCALAR_JSON_SCHEMAS),
    ignore: everyObjectType(schema),
  });
  return (router as unknown as { openAPIDocument: Json }).openAPIDocument;
}

/**
 * The scalar schemas, a new copy on each read: SOFA writes an argument's description into the
 * schema object it took for the parameter, so one shared object would carry the last described
 * argument's words (`end`'s) to every other parameter of that scalar (`date`).
 */
function freshOnEachRead(schemas: Readonly<Record<string, Json>>): Record<string, Json> {
  const fresh: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(schemas))
    Object.defineProperty(fresh, name, { enumerable: true, get: () => structuredClone(schema) });
  return fresh;
}

/**
 * The contract's OpenAPI 3.1 document: SOFA's component schemas and parameters, reshaped by the
 * route table into the real surface (full paths, `{"data": ...}` envelopes, error responses,
 * security, no query parameters on POST routes, nullable fields in 3.1 form).
 */
export function buildOpenApiDocument(schema: GraphQLSchema, origin: string = DEFAULT_ORIGIN): Json {
  const sofa = sofaOpenApi(schema);
  const sofaPaths = sofa['paths'] as Record<string, Record<string, Json>>;
  const sofaSchemas = { ...((sofa['components'] as Json)['schemas'] as Record<string, Json>) };
  delete sofaSchemas['Query'];

  const isAnswer = (name: string) => isObjectType(schema.getType(name));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item['description'] = pathDescription(ROUTES.filter((r) => r.path === route.path));
    item[route.method.toLowerCase()] = routeOperation(schema, sofaPaths, route);
  }
  withResponseExamples(paths);

  return renamedSchemas(
    namedEnums(
      upgradeExamples({
        openapi: '3.1.0',
        info: {
          title: API_TITLE,
          version: API_VERSION,
          description:
            'Exact conversion between units of measure and between currencies (ECB euro reference rates). The same capabilities are served over GraphQL at /graphql. Values are decimal strings; errors are `{"error": {code, message, status, param?, requestId}}`. Every GET route answers HEAD too (the same status and headers, no body). Every public route (no `security`) can be read by a page of any origin: `Access-Control-Allow-Origin: *` without credentials, and OPTIONS answers its CORS preflight (each path says how); keyed routes send no CORS fields, since a key belongs on a server. Neither HEAD nor OPTIONS is listed as an operation of its own: a client never calls them by name.',
          contact: { name: 'The operators of this server', url: `${origin}/` },
          license: LICENSE,
        },
        servers: serversOf(origin),
        tags: [
          {
            name: 'Units',
            description: 'The 15 categories and 154 units of the catalogue: public, cacheable, with names in the language asked.',
          },
          {
            name: 'Conversion',
            description:
              'Exact conversions between units, unit expressions and currencies, one or up to 1000 at a time: an API key, one conversion of quota each.',
          },
          {
            name: 'Currency',
            description:
              'The ECB euro reference rates since 1999-01-04: latest (public), of any day and base, series and means, the currencies registry.',
          },
          { name: 'Service', description: "The service's health, the key's usage, and this document." },
        ],
        paths,
        components: {
          ...OPENAPI_COMPONENTS,
          schemas: {
            ...WIRE_ENUMS,
            ...withoutScalarSamples(
              exclusiveBatchBranches(
                closedSetMembers(
                  requiredMembers(
                    withoutNullParam(boundedInputComponents(nullableFields(schema, describedEnums(schema, sofaSchemas)))),
                    isAnswer,
                    restOmittedCoordinates(schema),
                  ),
                ),
              ),
              isAnswer,
            ),
            ...(OPENAPI_COMPONENTS.schemas as Json),
          },
        },
      }) as Json,
    ),
    SCHEMA_NAMES,
  );
}

/** Where a server is reached when it is set up without PUBLIC_ORIGIN: `npm start` on its default port. */
export const DEFAULT_ORIGIN = 'http://localhost:8080';

/** The code's terms: the package is private (package.json), all rights reserved. */
const LICENSE: Json = { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' };

/**
 * The one server, as an absolute URL with a variable: tools that resolve a relative `servers` URL
 * against the page (Scalar, Postman) get a real origin, and a client points elsewhere by setting
 * `origin`. Its default is the configured PUBLIC_ORIGIN in the document served.
 */
function serversOf(origin: string): Json[] {
  return [
    {
      url: '{origin}',
      description: 'This server (its public origin).',
      'x-internal': false,
      variables: {
        origin: {
          default: origin,
          description: 'The origin the server is reached at (scheme, host and port, no path): the PUBLIC_ORIGIN it is set up with.',
        },
      },
    },
  ];
}

/**
 * Components named otherwise than their GraphQL types: `Error` would shadow the global `Error` in
 * generated code (TypeScript, Python, Java), so the document names it `ErrorBody`.
 */
const SCHEMA_NAMES: Readonly<Record<string, string>> = { Error: 'ErrorBody' };

/** The document with these components renamed, every reference to them with them. */
function renamedSchemas(document: Json, names: Readonly<Record<string, string>>): Json {
  const refs = new Map(Object.entries(names).map(([from, to]) => [`#/components/schemas/${from}`, `#/components/schemas/${to}`]));
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string' ? (refs.get(inner) ?? inner) : visit(inner),
      ]),
    );
  };
  const renamed = visit(document) as Json;
  const components = renamed['components'] as Json;
  const schemas = components['schemas'] as Record<string, Json>;
  components['schemas'] = Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [names[name] ?? name, schema]));
  return renamed;
}

/** A route's operation: SOFA's of its field reshaped by the route table, or the document's own. */
function routeOperation(schema: GraphQLSchema, sofaPaths: Record<string, Record<string, Json>>, route: RestRoute): Json {
  // A field's other routes are described from the operation SOFA makes of its first.
  const routed = route.field === undefined ? route : fieldRoute(route.field);
  const sofaOperation = () => sofaPaths[openApiPath(sofaPath(routed)).replace(/^\/v1/, '')]![route.method.toLowerCase()]!;
  const fieldAnswer = () => fieldOperation(schema, route, sofaOperation());
  const operation = route.field === undefined ? openApiOperation() : route.signedLink ? withSignedLinks(fieldAnswer()) : fieldAnswer();
  return {
    summary: route.summary,
    tags: [route.tag],
    // A signed link is a URL used as made, not a credential a client adds: its route has no scheme.
    security: route.access === 'key' && !route.signedLink ? [{ bearerAuth: [] }] : [],
    ...operation,
    responses: {
      ...(operation['responses'] as Json),
      ...(route.path === SERIES_EXPORT_PATH ? MOVED_LINK : {}),
      ...errorResponsesOf(route),
    },
  };
}

const documentTexts = new WeakMap<GraphQLSchema, Map<string, string>>();

/** The document as served, as JSON text: built once per schema and origin, since it depends on them and the route table alone. */
export function openApiText(schema: GraphQLSchema, origin: string = DEFAULT_ORIGIN): string {
  let byOrigin = documentTexts.get(schema);
  if (byOrigin === undefined) documentTexts.set(schema, (byOrigin = new Map()));
  let text = byOrigin.get(origin);
  if (text === undefined) {
    text = JSON.stringify(buildOpenApiDocument(schema, origin));
    byOrigin.set(origin, text);
  }
  return text;
}

/**
 * What the path answers beyond its operations: HEAD wherever GET is (RFC 9110 9.3.2), and on a
 * shared resource the CORS preflight (OPTIONS), said here rather than as operations of their own,
 * which every generated SDK and documentation menu would double (a `…Preflight` method nobody
 * calls: browsers send preflights themselves); 405 for any other method.
 */
function pathDescription(routes: RestRoute[]): string {
  const allow = allowedMethods(routes);
  const head = routes.some((r) => r.method === 'GET') ? `${HEAD_TEXT} ` : '';
  const cors = routes.some((r) => r.shared) ? `${CORS_TEXT} ` : '';
  return `${head}${cors}Any method but ${allow} is refused with 405 METHOD_NOT_ALLOWED, \`Allow: ${allow}\` and the error body.`;
}

const HEAD_TEXT = 'HEAD answers as GET does (the same checks, limits, status and headers), without a body.';

/** The CORS of a shared (public) resource, from the preflight's own header values. */
const CORS_TEXT = (() => {
  const preflight = preflightParts().headers;
  return `A page of any origin may read it (\`Access-Control-Allow-Origin: *\`, no credentials, on every answer, errors included). OPTIONS answers a browser's CORS preflight with 204: \`Access-Control-Allow-Methods: ${preflight['access-control-allow-methods']}\`, \`Access-Control-Allow-Headers: ${preflight['access-control-allow-headers']}\` (never \`Authorization\`), \`Access-Control-Max-Age: ${preflight['access-control-max-age']}\`.`;
})();

/** A REST error leaves `param` out when no one input is at fault: never null (GraphQL answers null). */
function withoutNullParam(schemas: Record<string, Json>): Record<string, Json> {
  const error = schemas['Error'] as { properties: Record<string, Json> } | undefined;
  if (!error) return schemas;
  const param = { type: 'string', description: 'The one input at fault; left out when there is none.' };
  return { ...schemas, Error: { ...error, properties: { ...error.properties, param } } };
}

function fieldOperation(schema: GraphQLSchema, route: RestRoute, sofaOperation: Json): Json {
  const field = schema.getQueryType()!.getFields()[route.field!]!;
  const parameters = ((sofaOperation['parameters'] as Json[] | undefined) ?? [])
    .filter((p) => route.method === 'GET' || p['in'] === 'path')
    // Path parameters carry the specification's names (`unit`), whatever argument they fill.
    .map((p) => boundedParameter(route.field!, p['in'] === 'path' ? { ...p, name: pathParamOf(route, p['name'] as string) } : p));
  const example = exampleRequest(route.field!);
  const body = sofaOperation['requestBody'] as { content: { 'application/json': { schema: Json } } } | undefined;
  const primary = fieldRoute(route.field!) === route;
  return {
    operationId: route.operationId ?? route.field,
    // A deprecated field only backs its route (convertPost): its GraphQL advice is not the route's description.
    description:
      field.description && !field.deprecationReason
        ? `${primary ? '' : `${route.summary}. `}${field.description}${formatsText(route)}`
        : `${route.summary}: answered as GET ${route.path} answers its query parameters.`,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: boundedBody(route.field!, body.content['application/json'].schema),
                ...(example ? { examples: { example: { summary: 'A request answered with 200', value: example } } } : {}),
              },
            },
          },
        }
      : {}),
    responses: {
      '200': success(
        route,
        dataSchema(field.type),
        true,
        field.args.some((arg) => arg.name === 'lang'),
      ),
    },
  };
}

/** What a route that negotiates its media type says of its other formats: each is an operation of its own. */
function formatsText(route: RestRoute): string {
  if (!variesOnAccept(route)) return '';
  const others = formatRoutes(route);
  const names = others.map((r) => r.path.slice(r.path.lastIndexOf('.') + 1));
  const signed = ROUTES.find((r) => r.field === route.field && r.signedLink);
  return ` This operation describes the JSON answer. The same page as ${others.map((r) => `${r.format} is ${r.operationId} (GET ${r.path})`).join(', as ')}; this path answers them too for Accept: ${route.formats!.join(' or ')} or format=${names.join('|')} (the response's x-other-formats names the operation of each).${signed ? ` A signed link's query sent here is redirected (308) to GET ${signed.path}.` : ''}`;
}

function openApiOperation(): Json {
  return {
    operationId: 'openapi',
    description: 'The OpenAPI 3.1 description of every REST route: public, cacheable, and the document /docs renders.',
    responses: {
      '200': success(ROUTES.find((r) => r.field === undefined)!, { type: 'object', description: 'An OpenAPI 3.1 document.' }, false),
    },
  };
}

/** A route's 200 answer; `names`: its field gives names in a language (a `lang` argument). */
function success(route: RestRoute, data: Json, envelope = true, names = false): Json {
  const json = { schema: envelope ? { type: 'object', required: ['data'], additionalProperties: false, properties: { data } } : data };
  const exported = route.formats !== undefined || route.format !== undefined;
  // One media type per operation (the JSON one where Accept chooses), but a signed link's route: its link names one of its formats.
  const types = route.format ? [route.format] : route.signedLink ? route.formats! : [];
  return {
    description: route.format
      ? `OK: ${route.format}, whatever Accept says.`
      : route.signedLink
        ? `OK, in the media type the link names (its format): ${types.join(' or ')}.`
        : 'OK',
    // Media types this path also answers (by Accept or format), each described by the operation named.
    ...(variesOnAccept(route) ? { 'x-other-formats': Object.fromEntries(formatRoutes(route).map((r) => [r.format, r.operationId])) } : {}),
    headers: {
      'X-Request-Id': REQUEST_ID_HEADER,
      ...RATE_LIMIT_HEADERS,
      'Cache-Control': { required: true, schema: cacheControlSchema(route) },
      ...(route.shared ? SHARED_HEADERS : {}),
      ...(route.etag ? { ETag: ETAG_HEADER } : {}),
      ...(route.cache === 'complete-answer'
        ? {
            ETag: {
              ...ETAG_HEADER,
              required: false,
              description: 'On a complete answer only (Cache-Control private): a strong validator of the exact bytes of this media type.',
            },
          }
        : {}),
      'Content-Encoding': { $ref: '#/components/headers/Content-Encoding' },
      ...(names || variesOnAccept(route) ? {} : { Vary: VARY_ENCODING_HEADER }),
      ...(names ? LANGUAGE_HEADERS : {}),
      ...(variesOnAccept(route) ? { Vary: VARY_ACCEPT_HEADER } : {}),
      ...(exported ? { Link: LINK_NEXT_HEADER, 'Content-Disposition': CONTENT_DISPOSITION_HEADER } : {}),
      ...(route.access === 'key' ? QUOTA_HEADERS(true) : {}),
    },
    content:
      types.length > 0 ? Object.fromEntries(types.map((format) => [format, { ...FORMAT_CONTENT[format] }])) : { 'application/json': json },
  };
}

/** The alternative formats' bodies: text, described (their rows are the JSON answer's entries). */
const FORMAT_CONTENT: Readonly<Record<ExportFormat, Json>> = {
  'text/csv': {
    schema: {
      type: 'string',
      description:
        "RFC 4180 CSV, UTF-8, CRLF line ends: a header row (`date,base,<codes>` per publication; `period,start,end,publications,base,<codes>,partial` grouped, then six columns a code: `<code>_first,<code>_last,<code>_min,<code>_max,<code>_change,<code>_changePercent`, the entry's `figures`), then one row per entry. An empty cell is a currency with no rate in that entry. The page's `change` (between its two ends) is in the JSON answer only.",
    },
  },
  // A download read as bytes (`binary`): how generated clients read an application/* body that is not JSON (a Blob, a stream).
  'application/x-ndjson': {
    schema: {
      type: 'string',
      format: 'binary',
      description: 'One JSON object per line (LF), UTF-8: each entry of the JSON answer with its `base`.',
    },
  },
};

/** The keyed export's answer to a signed link's query (src/http/rest/signed-link.ts). */
const MOVED_LINK: Json = {
  '308': {
    description: `A signed link's query (keyId, expires, signature): Permanent Redirect to the same query on GET ${SIGNED_EXPORT_PATH}, where links are opened.`,
    headers: {
      'X-Request-Id': REQUEST_ID_HEADER,
      Location: { required: true, schema: { type: 'string', pattern: `^${SIGNED_EXPORT_PATH}\\?` } },
    },
  },
};

const CONTENT_DISPOSITION_HEADER: Json = {
  description: 'On CSV and NDJSON: `attachment; filename="ecb-rates-<base>-<start>-<end>.<csv|ndjson>"`, the page\'s own range.',
  required: false,
  schema: {
    type: 'string',
    pattern: '^attachment; filename="ecb-rates-[A-Z]{3}-\\d{4}-\\d{2}-\\d{2}-\\d{4}-\\d{2}-\\d{2}\\.(csv|ndjson)"$',
  },
};

const LINK_NEXT_HEADER: Json = {
  description:
    'When the range goes on past this page: `</v1/...?...&cursor=...>; rel="next"` (RFC 8288), the same query with the next cursor.',
  required: false,
  schema: { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
};

function cacheControlSchema(route: RestRoute): Json {
  if (route.cache === 'complete-answer') {
    return {
      type: 'string',
      enum: ['no-store', COMPLETE_CACHE_CONTROL],
      description: 'Private (keyed) and long once the answer is complete; no-store while a publication may still join it.',
    };
  }
  if (route.cache === 'latest-rates') {
    return {
      type: 'string',
      pattern: '^public, max-age=\\d+$',
      description: 'At most 3600 s, and never past the next expected ECB publication.',
    };
  }
  return { type: 'string', const: cacheControl(route, () => 0) };
}

const SHARED_HEADERS: Json = {
  'Access-Control-Allow-Origin': { required: true, schema: { type: 'string', const: '*' } },
  'Access-Control-Expose-Headers': {
    required: true,
    schema: { type: 'string', const: SHARED_CORS_HEADERS['access-control-expose-headers'] },
  },
};

/** The JSON schema of a field's value in a REST answer (never null there: failures are errors). */
function dataSchema(type: GraphQLOutputType): Json {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return { type: 'array', items: dataSchema(inner.ofType) };
  return { $ref: `#/components/schemas/${getNamedType(inner).name}` };
}

/** OpenAPI 3.1 has no `nullable`: a nullable GraphQL field becomes "this schema, or null". */
function nullableFields(schema: GraphQLSchema, schemas: Record<string, Json>): Record<string, Json> {
  const result: Record<string, Json> = {};
  for (const [name, objectSchema] of Object.entries(schemas)) {
    const type = schema.getType(name);
    const properties = objectSchema['properties'] as Record<string, Json> | undefined;
    if (!properties || !(isObjectType(type) || isUnionType(type))) {
      result[name] = objectSchema;
      continue;
    }
    const fields = isObjectType(type) ? type.getFields() : {};
    const patched: Record<string, Json> = {};
    for (const [prop, propSchema] of Object.entries(properties)) {
      const field = fields[prop];
      patched[prop] = field && !isNonNullType(field.type) ? orNull(propSchema) : propSchema;
    }
    result[name] = { ...objectSchema, properties: patched, additionalProperties: false };
  }
  return result;
}

function orNull(propSchema: Json): Json {
  const { description, ...rest } = propSchema;
  if (typeof rest['type'] === 'string') return { ...propSchema, type: [rest['type'], 'null'] };
  return { ...(description ? { description } : {}), oneOf: [rest, { type: 'null' }] };
}

/** 3.1 schemas use `examples` (an array); SOFA and the scalar table write 3.0's `example`. */
function upgradeExamples(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(upgradeExamples);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'example' && 'type' in value) out['examples'] = [inner];
    else out[key] = upgradeExamples(inner);
  }
  return out;
}
