import { DEFAULT_LANGUAGE, SUPPORTED_LANGUAGES, type SupportedLanguage } from './supported';

/** Where the language of an answer came from. */
export type LanguageSource = 'lang' | 'accept-language' | 'default';

/** The language an answer's names are in, and how the request led to it. */
export interface LanguageChoice {
  readonly used: SupportedLanguage;
  readonly source: LanguageSource;
  /** The tag asked for (`lang`, or the Accept-Language range chosen); null when none was. */
  readonly asked: string | null;
  /** False when the tag asked for was unknown or malformed and `used` is the closest supported language. */
  readonly exact: boolean;
}

/** Longer tags and headers are not parsed: no real tag or preference list comes near these. */
const MAX_TAG_LENGTH = 64;
const MAX_HEADER_LENGTH = 1024;
const MAX_RANGES = 32;

const SUPPORTED = SUPPORTED_LANGUAGES.map((tag) => ({ tag, locale: new Intl.Locale(tag) }));

/**
 * The supported language closest to a BCP 47 tag: same language, and the script and region where
 * the supported tag names one (the script compared after likely-subtags maximization, so `zh-TW`
 * is `zh-Hant`); the most specific match wins. Undefined for a malformed tag or another language.
 */
export function closestSupported(tag: string): SupportedLanguage | undefined {
  if (tag.length === 0 || tag.length > MAX_TAG_LENGTH) return undefined;
  let locale: Intl.Locale;
  try {
    locale = new Intl.Locale(Intl.getCanonicalLocales(tag)[0]!);
  } catch {
    return undefined;
  }
  const script = locale.maximize().script;
  let best: { tag: SupportedLanguage; score: number } | undefined;
  for (const candidate of SUPPORTED) {
    const { language, script: wantedScript, region: wantedRegion } = candidate.locale;
    if (language !== locale.language) continue;
    if (wantedScript !== undefined && wantedScript !== script) continue;
    if (wantedRegion !== undefined && wantedRegion !== locale.region) continue;
    const score = (wantedScript === undefined ? 0 : 1) + (wantedRegion === undefined ? 0 : 1);
    if (best === undefined || score > best.score) best = { tag: candidate.tag, score };
  }
  return best?.tag;
}

/**
 * The language ranges of an Accept-Language header (RFC 9110 12.5.4), most preferred first: q=0
 * and malformed weights left out, equal weights in the order sent. `*` is kept (it matches nothing
 * supported, so the default answers).
 */
export function acceptedLanguages(header: string): string[] {
  if (header.length > MAX_HEADER_LENGTH) return [];
  const ranges: { tag: string; q: number; at: number }[] = [];
  for (const [at, part] of header.split(',').slice(0, MAX_RANGES).entries()) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim());
    if (range === '') continue;
    const weight = params.find((p) => /^q\s*=/i.test(p));
    const q = weight === undefined ? 1 : qValue(weight.replace(/^q\s*=\s*/i, ''));
    if (q !== undefined && q > 0) ranges.push({ tag: range, q, at });
  }
  return ranges.sort((a, b) => b.q - a.q || a.at - b.at).map((r) => r.tag);
}

/** A qvalue as RFC 9110 12.4.2 writes it (0 to 1, at most three decimals); undefined otherwise. */
function qValue(text: string): number | undefined {
  return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : undefined;
}

/**
 * The language of an answer: `lang` when given (its closest supported language, English when it has
 * none: never an error), else the first Accept-Language range that has a supported language, else
 * English.
 */
export function chooseLanguage(lang: string | null | undefined, acceptLanguage: string | null | undefined): LanguageChoice {
  if (lang !== null && lang !== undefined) {
    const used = closestSupported(lang);
    return { used: used ?? DEFAULT_LANGUAGE, source: 'lang', asked: lang, exact: used !== undefined && sameTag(used, lang) };
  }
  for (const range of acceptedLanguages(acceptLanguage ?? '')) {
    const used = closestSupported(range);
    if (used !== undefined) return { used, source: 'accept-language', asked: range, exact: sameTag(used, range) };
  }
  return { used: DEFAULT_LANGUAGE, source: 'default', asked: null, exact: true };
}

function sameTag(used: string, asked: string): boolean {
  return used.toLowerCase() === asked.toLowerCase();
}
