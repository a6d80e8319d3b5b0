import { SUCCESSIONS } from './successions';

/**
 * Every currency the ECB has ever quoted in its euro reference rates, plus EUR. A well-formed code
 * outside this set is UNKNOWN_CURRENCY; one inside it may still have no rate on a given day
 * (RATE_NOT_FOUND). Kept as a list so the answer does not depend on whether rates are loaded yet.
 */
export const ECB_CURRENCY_CODES: ReadonlySet<string> = new Set([
  'EUR',
  ...'AUD BGN BRL CAD CHF CNY CYP CZK DKK EEK GBP HKD HRK HUF IDR ILS INR ISK JPY KRW LTL LVL MTL MXN MYR NOK NZD PHP PLN ROL RON RUB SEK SGD SIT SKK THB TRL TRY USD ZAR'.split(
    ' ',
  ),
]);

/**
 * Every currency this API converts: those the ECB has quoted, and those the law replaced at a fixed
 * rate before the ECB published any (DEM, FRF and the other currencies of the euro's first members).
 */
export const CURRENCY_CODES: ReadonlySet<string> = new Set([...ECB_CURRENCY_CODES, ...SUCCESSIONS.map((s) => s.code)]);

export const CODE_SHAPE = /^[A-Za-z]{3}$/;

/** A token that is written like a currency code (three ASCII letters), known or not. */
export function looksLikeCurrencyCode(token: string): boolean {
  return CODE_SHAPE.test(token);
}

/** The upper-case code when the API converts it (CURRENCY_CODES), else undefined. */
export function knownCurrency(token: string): string | undefined {
  if (!looksLikeCurrencyCode(token)) return undefined;
  const code = token.toUpperCase();
  return CURRENCY_CODES.has(code) ? code : undefined;
}
