import type { LocalizedName } from '../domain/names/localized';
import type { LanguageNames } from '../services/names';
import { builder } from './builder';
import type { GraphQLContext } from './context';

/**
 * The language of names is chosen per root field (`lang`), as each REST route is one field: one
 * argument serves both transports. A document asking several fields in one language passes the
 * same `$lang` to each, or none and lets its Accept-Language choose for all.
 */
export const LocalizedNameRef = builder.objectRef<LocalizedName>('LocalizedName').implement({
  description: 'A name in the language of the answer (CLDR for units, ICU for currencies).',
  fields: (t) => ({
    text: t.exposeString('text', { description: 'The name: never empty, and in English where `localized` is false.' }),
    language: t.exposeString('language', {
      description: 'The BCP 47 tag of the language of `text`: the answer’s, or `en` where the data has no name in it.',
    }),
    localized: t.exposeBoolean('localized', {
      description: 'False when the data has no name in the answer’s language and `text` is this API’s English name.',
    }),
  }),
});

export const LANG_TEXT =
  'The language of the names (BCP 47, such as `de`, `pt-BR`, `zh-Hant`). Without it, the Accept-Language header chooses, else English. ' +
  'An unknown or malformed tag is not an error: the closest supported language answers (English when there is none), said in Content-Language (REST) and `extensions.languages` (GraphQL).';

export const langArg = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) =>
  t.arg.string({ required: false, description: LANG_TEXT });

/** The names in a field's language, the choice noted on the request for its answer. */
export function namesOf(ctx: GraphQLContext, lang: string | null | undefined): LanguageNames {
  return ctx.services.names.of(ctx.requestContext.language(lang).used);
}
