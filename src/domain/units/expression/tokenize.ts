/**
 * Splits a unit expression into names, operators, parentheses and exponents. Whitespace (a space
 * or a tab) between two operands is a multiplication ("kg m s^-2"); elsewhere it is only a
 * separator ("kg * m"). Any other whitespace character is refused where it stands.
 */
import type { UnitDef } from '../catalogue';
import { expressionError } from './errors';
import { MAX_EXPONENT } from './limits';
import { matchWholeName } from './names';

export type Token =
  | { readonly type: 'name'; readonly text: string; readonly pos: number; readonly unit?: UnitDef }
  | { readonly type: 'mul' | 'div' | 'open' | 'close'; readonly pos: number }
  | { readonly type: 'exp'; readonly value: number; readonly pos: number };

const OPERATORS: Readonly<Record<string, 'mul' | 'div' | 'open' | 'close'>> = {
  '*': 'mul',
  '·': 'mul',
  '⋅': 'mul',
  '×': 'mul',
  '/': 'div',
  '(': 'open',
  ')': 'close',
};
const SUPERSCRIPT_DIGITS = '⁰¹²³⁴⁵⁶⁷⁸⁹';
const SUPERSCRIPT_SIGNS = '⁻⁺';
/** Whitespace in an expression is the space (U+0020) and the tab (U+0009), as the grammar says. */
const isSpace = (c: string): boolean => c === ' ' || c === '\t';
/**
 * Every other character JavaScript's \s matches (line breaks, no-break and other Unicode spaces,
 * the byte-order mark) ends a name and is then refused, never read as a separator or inside a name.
 */
const OTHER_SPACE = /[^\S \t]/;

const codePoint = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
const isNameChar = (c: string): boolean =>
  !isSpace(c) &&
  !OTHER_SPACE.test(c) &&
  !Object.hasOwn(OPERATORS, c) &&
  c !== '^' &&
  !SUPERSCRIPT_DIGITS.includes(c) &&
  !SUPERSCRIPT_SIGNS.includes(c);

export function tokenize(source: string, param: string): Token[] {
  const fail = (problem: string) => expressionError(param, source, problem);
  const tokens: Token[] = [];
  const endsName = (i: number): boolean => i >= source.length || !isNameChar(source[i]!);
  let space = -1; // where the whitespace before the current token began, or -1
  let i = 0;

  const exponent = (pos: number, sign: string, written: string, what: string): Token => {
    if (written === '') throw fail(`${what} at character ${pos + 1} must be followed by an integer such as 2 or -1`);
    const digits = written.replace(/^0+(?=\d)/, '');
    const value = digits.length > 3 ? Infinity : Number(digits);
    if (value > MAX_EXPONENT) {
      const shown = digits.length > 12 ? `${digits.slice(0, 12)}…` : digits;
      throw fail(
        `the exponent ${sign === '-' ? '-' : ''}${shown} is out of range (exponents are integers from -${MAX_EXPONENT} to ${MAX_EXPONENT})`,
      );
    }
    return { type: 'exp', value: sign === '-' ? -value : value, pos };
  };

  while (i < source.length) {
    const c = source[i]!;
    const start = i;
    let token: Token;
    if (OTHER_SPACE.test(c)) {
      throw fail(`${codePoint(c)} at character ${i + 1} is not whitespace here: separate names with a space, a tab or '*'`);
    } else if (isSpace(c)) {
      space = i;
      while (i < source.length && isSpace(source[i]!)) i += 1;
      continue;
    } else if (Object.hasOwn(OPERATORS, c)) {
      token = { type: OPERATORS[c]!, pos: i };
      i += 1;
    } else if (c === '^') {
      i += 1;
      const sign = source[i] === '-' || source[i] === '+' ? source[i++]! : '';
      const from = i;
      while (i < source.length && source[i]! >= '0' && source[i]! <= '9') i += 1;
      token = exponent(start, sign, source.slice(from, i), "'^'");
    } else if (SUPERSCRIPT_DIGITS.includes(c) || SUPERSCRIPT_SIGNS.includes(c)) {
      const sign = c === '⁻' ? '-' : '';
      if (SUPERSCRIPT_SIGNS.includes(c)) i += 1;
      let digits = '';
      while (i < source.length && SUPERSCRIPT_DIGITS.includes(source[i]!)) digits += String(SUPERSCRIPT_DIGITS.indexOf(source[i++]!));
      token = exponent(start, sign, digits, `'${c}'`);
    } else {
      const whole = matchWholeName(source, i, endsName);
      if (whole !== undefined) {
        i += whole.text.length;
        token = { type: 'name', text: source.slice(start, i), pos: start, unit: whole.unit };
      } else {
        while (i < source.length && isNameChar(source[i]!)) i += 1;
        token = { type: 'name', text: source.slice(start, i), pos: start };
      }
    }
    const previous = tokens[tokens.length - 1];
    const endsOperand = previous !== undefined && (previous.type === 'name' || previous.type === 'close' || previous.type === 'exp');
    if (space >= 0 && endsOperand && (token.type === 'name' || token.type === 'open')) tokens.push({ type: 'mul', pos: space });
    space = -1;
    tokens.push(token);
  }
  return tokens;
}
