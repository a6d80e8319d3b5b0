import type { RequestContext } from '../../services/request-context';
import { mergeVary } from './vary';

/**
 * The headers of an answer that gives names in a language: `Vary: Accept-Language` (added to any
 * Vary it has, once), since the names follow that header when no `lang` is given, and, on a success,
 * `Content-Language` listing the languages used (RFC 9110 8.5). None on an answer without names.
 */
export function languageHeaders(context: RequestContext, status: number, vary: string | null | undefined): Record<string, string> {
  if (context.languages.length === 0) return {};
  const headers: Record<string, string> = { vary: mergeVary(vary, ['Accept-Language']) };
  if (status < 400) headers['content-language'] = [...new Set(context.languages.map((c) => c.used))].join(', ');
  return headers;
}
