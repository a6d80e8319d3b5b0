/**
 * The grammar of unit expressions (docs/unit-expressions.md), read by recursive descent into a
 * flat list of names with their exponents:
 *
 *   expression = product [ "/" power ]
 *   product    = power { multiply power }
 *   power      = primary [ exponent ]
 *   primary    = name | "(" expression ")"
 *
 * One "/" per level, followed by one power: "m/s/s" and "J/kg*K" are refused rather than read
 * left to right, because writers mean different things by them; "m/s^2" and "J/(kg*K)" say it.
 */
import { quoteInput } from '../../quote-input';
import { expressionError } from './errors';
import { MAX_EXPONENT, MAX_FACTORS } from './limits';
import { classifyName, type Atom } from './names';
import { tokenize, type Token } from './tokenize';

export interface Term {
  readonly atom: Atom;
  readonly exponent: number;
}

const describe = (token: Token | undefined): string => {
  if (token === undefined) return 'the end';
  if (token.type === 'name') return quoteInput(token.text);
  if (token.type === 'exp') return `an exponent at character ${token.pos + 1}`;
  const shown = { mul: 'a multiplication', div: "'/'", open: "'('", close: "')'" }[token.type];
  return `${shown} at character ${token.pos + 1}`;
};

export function parseTerms(source: string, param: string): Term[] {
  const tokens = tokenize(source, param);
  const fail = (problem: string) => expressionError(param, source, problem);
  const names = tokens.filter((t) => t.type === 'name').length;
  if (names > MAX_FACTORS) throw fail(`it has ${names} names, more than the ${MAX_FACTORS} an expression may have`);
  let i = 0;
  const peek = (): Token | undefined => tokens[i];

  const scale = (terms: Term[], k: number): Term[] =>
    terms.map(({ atom, exponent }) => {
      const e = exponent * k;
      if (Math.abs(e) > MAX_EXPONENT) {
        const name = atom.kind === 'currency' ? atom.code : 'text' in atom ? atom.text : '1';
        throw fail(
          `the exponent of ${quoteInput(name)} comes to ${e}, out of range (exponents are integers from -${MAX_EXPONENT} to ${MAX_EXPONENT})`,
        );
      }
      return { atom, exponent: e };
    });

  /** What stopped an expression early: inside the parenthesis `open`, or at the top when undefined. */
  const unexpected = (token: Token | undefined, open: Token | undefined) => {
    if (token?.type === 'name' || token?.type === 'open') {
      return fail(
        `${token.type === 'name' ? quoteInput(token.text) : "'('"} at character ${token.pos + 1} follows a unit without an operator (write * or a space between two units)`,
      );
    }
    if (open !== undefined) return fail(`the '(' at character ${open.pos + 1} is not closed`);
    return fail(`the ')' at character ${token!.pos + 1} has no matching '('`);
  };

  const primary = (): Term[] => {
    const token = peek();
    if (token?.type === 'name') {
      i += 1;
      const atom: Atom = token.unit !== undefined ? { kind: 'unit', unit: token.unit, text: token.text } : classifyName(token.text);
      if (atom.kind === 'number')
        throw fail(`${quoteInput(atom.text)} is a number, not a unit (the only number allowed is 1, as in 1/s; put the quantity in value)`);
      return atom.kind === 'one' ? [] : [{ atom, exponent: 1 }];
    }
    if (token?.type === 'open') {
      i += 1;
      const inner = expression();
      if (peek()?.type !== 'close') throw unexpected(peek(), token);
      i += 1;
      return inner;
    }
    throw fail(`a unit or '(' was expected, not ${describe(token)}`);
  };

  const power = (): Term[] => {
    const base = primary();
    const token = peek();
    if (token?.type !== 'exp') return base;
    i += 1;
    if (peek()?.type === 'exp') throw fail(`two exponents in a row at character ${peek()!.pos + 1}; use parentheses, as in (m^2)^3`);
    return scale(base, token.value);
  };

  const expression = (): Term[] => {
    const terms = power();
    while (peek()?.type === 'mul') {
      i += 1;
      terms.push(...power());
    }
    if (peek()?.type !== 'div') return terms;
    const slash = peek()!;
    i += 1;
    terms.push(...scale(power(), -1));
    const next = peek();
    if (next?.type === 'div' || next?.type === 'mul') {
      throw fail(
        `${describe(next)} follows the '/' at character ${slash.pos + 1}, which is ambiguous; ` +
          'after "/" write one unit or a group in parentheses, as in m/s^2 or J/(kg*K)',
      );
    }
    return terms;
  };

  const terms = expression();
  if (i < tokens.length) throw unexpected(peek(), undefined);
  return terms;
}
