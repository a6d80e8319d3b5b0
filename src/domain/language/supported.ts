/**
 * The languages names are given in: each is a CLDR locale of `cldr-units-full` and an ICU locale of
 * Node's full ICU. A regional or script variant is listed only where its names differ from the
 * language's (en-GB spells `metre`, pt-PT and zh-Hant write other words); any other tag falls back
 * to the closest of these (choose.ts).
 */
export const SUPPORTED_LANGUAGES = [
  'en',
  'en-GB',
  'ar',
  'cs',
  'da',
  'de',
  'el',
  'es',
  'fi',
  'fr',
  'he',
  'hi',
  'hu',
  'id',
  'it',
  'ja',
  'ko',
  'nb',
  'nl',
  'pl',
  'pt',
  'pt-PT',
  'ro',
  'ru',
  'sv',
  'th',
  'tr',
  'uk',
  'vi',
  'zh-Hans',
  'zh-Hant',
] as const;

export type SupportedLanguage = (typeof SUPPORTED_LANGUAGES)[number];

/** The language of an answer when the request names none this API supports. */
export const DEFAULT_LANGUAGE: SupportedLanguage = 'en';
