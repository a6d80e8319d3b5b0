import type { RestRoute } from '../routes';
import { strongEtag } from '../answer/shared-resource';

/** An answer's `{"data": ...}` bytes with their strong ETag, computed once. */
export interface PrebuiltAnswer {
  readonly body: Buffer;
  readonly etag: string;
}

/**
 * The answers of the catalogue routes (`prebuilt` in the route table), serialised once per resource
 * and kept as bytes with their ETag: they depend on the catalogue alone, so serialising and hashing
 * them per request would redo the same work. An answer is named by the route and the
 * canonical ids of what the resolver found and the language of its names, never by the request's
 * spelling (`LENGTH`, `metre`, `ft` name the same bytes; so do `lang=de-CH` and `lang=de`), so the
 * store holds at most one entry per catalogue resource and supported language.
 */
export class PrebuiltAnswers {
  private readonly answers = new Map<string, PrebuiltAnswer>();

  /** The kept answer for this resolved value in this language (the names' Content-Language), or `serialise()`'s, kept for next time. */
  of(route: RestRoute, value: unknown, serialise: () => string, language: string): PrebuiltAnswer {
    const id = resourceId(value);
    if (id === undefined) return prebuild(serialise());
    const key = `${route.path} ${language} ${id}`;
    let answer = this.answers.get(key);
    if (!answer) {
      answer = prebuild(serialise());
      this.answers.set(key, answer);
    }
    return answer;
  }
}

/** A text's bytes with their strong ETag. */
export function prebuild(text: string): PrebuiltAnswer {
  const body = Buffer.from(text);
  return { body, etag: strongEtag(body) };
}

/** Catalogue entries carry their canonical id; a list is named by its entries' ids, in order. */
function resourceId(value: unknown): string | undefined {
  if (Array.isArray(value)) {
    const ids = value.map(resourceId);
    return ids.every((id) => id !== undefined) ? `[${ids.join(',')}]` : undefined;
  }
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string')
    return (value as { id: string }).id;
  return undefined;
}
