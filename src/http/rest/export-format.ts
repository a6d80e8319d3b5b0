import { ApiError } from '../../domain/errors';
import { quoteInput } from '../../domain/quote-input';
import { FORMAT_PARAM, LINK_FORMATS } from '../../services/series-links';
import { fieldRoute, type RestRoute } from '../routes';

/** The names `format` takes, and the media type each asks for. */
const FORMAT_NAMES = { json: 'application/json', ...LINK_FORMATS } as const;

const NAMES = Object.keys(FORMAT_NAMES).join(', ');

/**
 * The `format` query parameter of a route that negotiates its media type (`formats`): a client
 * that cannot set Accept (a spreadsheet, a browser's address bar, curl without -H) names the format
 * instead, and it wins over Accept. Answers the query without it and the media type it names, as
 * the Accept the export negotiates on; undefined when the query has none. On a route whose path
 * fixes the format (`series.csv`), `format` is refused with a pointer to the route that takes it.
 */
export function chosenFormat(route: RestRoute, query: string): { query: string; accept: string } | undefined {
  if (!query.includes(FORMAT_PARAM) || (route.formats === undefined && route.format === undefined)) return undefined;
  const params = new URLSearchParams(query);
  const given = params.getAll(FORMAT_PARAM);
  if (given.length === 0) return undefined;
  const keyed = route.field === undefined ? route : fieldRoute(route.field);
  if (route.format !== undefined) {
    throw new ApiError(
      'INVALID_REQUEST',
      `GET ${route.path} answers ${route.format} whatever the query says: drop ${FORMAT_PARAM}, or use GET ${keyed.path}?${FORMAT_PARAM}=${NAMES.replaceAll(', ', '|')}.`,
      { param: FORMAT_PARAM },
    );
  }
  if (given.length > 1)
    throw new ApiError('INVALID_REQUEST', `Query parameter '${FORMAT_PARAM}' is given more than once.`, { param: FORMAT_PARAM });
  const name = given[0]!;
  if (!Object.hasOwn(FORMAT_NAMES, name)) {
    throw new ApiError(
      'INVALID_REQUEST',
      `${FORMAT_PARAM} is one of ${NAMES} (got ${quoteInput(name)}); an Accept of ${(route.formats ?? []).join(' or ')} chooses the same, and GET ${keyed.path}.csv and ${keyed.path}.ndjson answer one format each.`,
      { param: FORMAT_PARAM },
    );
  }
  params.delete(FORMAT_PARAM);
  return { query: params.toString(), accept: FORMAT_NAMES[name as keyof typeof FORMAT_NAMES] };
}
