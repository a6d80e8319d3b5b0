import { processRegularResult, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { ApiError } from '../../domain/errors';
import { isJsonContentType, notJson, readBodyText } from '../front/body';
import { graphQLErrorOf } from '../answer/errors';

const refusal = (message: string) => graphQLErrorOf(new ApiError('INVALID_REQUEST', message), { http: true });

/**
 * Every JSON body is parsed here, within `limit` bytes: Yoga matches `application/json`
 * case-sensitively, where media types are not (RFC 9110), and its own body limit (maxRequestBodySize)
 * pipes every body through a TransformStream, whose pipeline builds an AbortController and a
 * DOMException per request, on every POST /graphql. The limit is the REST routes' reader.
 */
async function parseJsonBody(request: Request, limit: number): Promise<GraphQLParams> {
  let text: string;
  try {
    text = await readBodyText(request, limit);
  } catch (error) {
    // Too large (413), or not UTF-8 (400), as on REST; anything else is the stream failing.
    if (error instanceof ApiError) throw graphQLErrorOf(error, { http: true });
    throw refusal('POST body sent invalid JSON.');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refusal('POST body sent invalid JSON.');
  }
  if (typeof body !== 'object' || body === null) throw refusal('The POST body must be a JSON object.');
  return body as GraphQLParams;
}

/**
 * JSON in and JSON out at /graphql, as on every route. Yoga would also parse form, multipart and
 * application/graphql bodies, lets malformed JSON in GET parameters escape as an unexpected error,
 * and answers a body it cannot parse, or an Accept header without a JSON type, with an empty 415
 * or 406. The contract wants 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON, 400 for
 * malformed JSON, and has no 406 (RFC 9110 lets a server disregard Accept): errors keep their shape.
 */
export function useJsonMediaTypes(options: { bodyLimit: number }): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (request.method === 'GET' && requestParser !== undefined) {
        setRequestParser(async (req) => {
          try {
            return await requestParser(req);
          } catch (error) {
            if (error instanceof SyntaxError) throw refusal('The variables and extensions parameters must be JSON objects.');
            throw error;
          }
        });
      }
      if (request.method !== 'POST') return;
      if (!isJsonContentType(request.headers.get('content-type'))) throw graphQLErrorOf(notJson(), { http: true });
      setRequestParser((req) => parseJsonBody(req, options.bodyLimit));
    },
    onResultProcess({ resultProcessor, setResultProcessor }) {
      if (resultProcessor === undefined) setResultProcessor(processRegularResult, 'application/json');
    },
  };
}
