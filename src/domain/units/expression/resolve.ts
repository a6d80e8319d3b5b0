/**
 * Settles the names of a parsed expression that depend on the rate table: unknown names are
 * UNKNOWN_UNIT with suggestions, currency codes must be ones the ECB has quoted, and a name that
 * is both a unit and a currency code is refused rather than guessed.
 */
import { ApiError } from '../../errors';
import { CURRENCY_CODES } from '../../currency/codes';
import { didYouMean, nearestNames } from '../../nearest-names';
import { quoteInput } from '../../quote-input';
import type { CompiledExpression } from './compile';
import { suggestUnits } from './suggest';

/** True for an upper-case code the ECB has quoted (EUR included). */
export type IsCurrency = (code: string) => boolean;

function unknownName(
  expression: CompiledExpression,
  param: string,
  name: string,
  isCurrency: IsCurrency,
  currencyShaped: boolean,
): ApiError {
  const where = name === expression.source ? '' : ` in ${quoteInput(expression.source)}`;
  const upper = name.toUpperCase();
  const currency = /^[A-Za-z]{3}$/.test(name) && upper !== name && isCurrency(upper);
  // Three upper-case letters read as a currency code: the nearest codes come first (GPB: GBP).
  const codes = currencyShaped ? nearestNames(name, CURRENCY_CODES) : [];
  const suggestions = [...codes, ...suggestUnits(name)].slice(0, 3);
  const hint = currency ? ` (did you mean ${upper}? Currency codes are written in upper case)` : didYouMean(suggestions);
  const subject = currencyShaped ? quoteInput(name) : `Unit ${quoteInput(name)}`;
  const known = currencyShaped ? 'neither a unit nor a currency the ECB has quoted' : 'not known';
  return new ApiError('UNKNOWN_UNIT', `${subject}${where} is ${known}${hint}.`, { param, seeAlso: 'units' });
}

export function resolveExpression(expression: CompiledExpression, param: string, isCurrency: IsCurrency): void {
  if (expression.kind === 'unit') return;
  for (const atom of expression.pending) {
    if (atom.kind === 'unknown') throw unknownName(expression, param, atom.text, isCurrency, false);
    if (atom.kind === 'currency' && !isCurrency(atom.code)) {
      throw unknownName(expression, param, atom.code, isCurrency, true);
    }
    if (atom.kind === 'unit' && isCurrency(atom.text)) {
      const message =
        `${quoteInput(atom.text)} in ${quoteInput(expression.source)} is both a unit (${atom.unit.id}) and a currency code; ` +
        `write ${atom.unit.id} for the unit.`;
      throw new ApiError('INVALID_REQUEST', message, { param });
    }
  }
}
