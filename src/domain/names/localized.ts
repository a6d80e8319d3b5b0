import type { SupportedLanguage } from '../language/supported';

/** A name in the language an answer is given in. */
export interface LocalizedName {
  readonly text: string;
  /** The language of `text`: the answer's language, or `en` where there is no name in it. */
  readonly language: SupportedLanguage;
  /** False when the data has no name in the answer's language and `text` is this API's English name. */
  readonly localized: boolean;
}

/** Currency names in a language, from ICU (Intl.DisplayNames): undefined for a code ICU has no name for. */
export function currencyNamer(language: SupportedLanguage): (code: string) => string | undefined {
  const names = new Intl.DisplayNames(language, { type: 'currency', fallback: 'none' });
  return (code) => {
    const name = names.of(code);
    return name === undefined || name === code ? undefined : name;
  };
}
