import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDecimalText } from '../../../src/domain/decimal';
import { ApiError } from '../../../src/domain/errors';
import { PiRational } from '../../../src/domain/pi-rational';
import { Rational } from '../../../src/domain/rational';
import { UNITS } from '../../../src/domain/units/catalogue';
import { convertUnits } from '../../../src/domain/units/convert';
import { formatDimension } from '../../../src/domain/units/dimensions';
import { unitNumbers } from '../../../src/domain/units/factors';
import { convertUnitExpressions, MAX_EXPRESSION_LENGTH, parseExpression, type Compound } from '../../../src/domain/units/expression';
import { decimalValue, decimalsOption, roundingMode, sameCategoryPair } from './arbitraries';

const options = { isCurrency: () => false };

/** The answer, or the error code: properties compare outcomes. */
function outcome(run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

const compound = (text: string): Compound => {
  const expression = parseExpression(text, 'from');
  if (expression.kind !== 'compound') throw new Error(`${text} is a whole unit`);
  return expression;
};
const meaning = (c: Compound) => ({ factor: c.unitFactor.toString(), dimension: formatDimension(c.dimension) });

/** Units that may be part of an expression: linear ones, and K and °R (their zero is absolute). */
const multipliable = UNITS.filter((u) => u.kind === 'linear' || (u.kind === 'affine' && unitNumbers(u).offset.isZero()));
/** One unit written by its id (always one name in an expression), with a small exponent. */
const term = (maxExponent: number) =>
  fc.tuple(
    fc.constantFrom(...multipliable),
    fc.integer({ min: -maxExponent, max: maxExponent }).filter((e) => e !== 0),
  );
const written = (terms: readonly (readonly [{ id: string }, number])[]) =>
  terms.map(([u, e]) => (e === 1 ? u.id : `${u.id}^${e}`)).join('*');

describe('expression properties', () => {
  it('two catalogue units of one category convert as convertUnits does, answers and refusals alike', () => {
    fc.assert(
      fc.property(sameCategoryPair, decimalValue, decimalsOption, roundingMode, ([a, b], value, decimals, rounding) => {
        const request = { value, from: a.symbol, to: b.id, decimals, rounding };
        expect(outcome(() => convertUnitExpressions(request, options))).toEqual(outcome(() => convertUnits(request)));
      }),
      { numRuns: 1000 },
    );
  });

  it('a linear unit in parentheses (an expression, not a catalogue name) converts as the unit does', () => {
    const linearPair = sameCategoryPair.filter(([a, b]) => a.kind === 'linear' && b.kind === 'linear');
    fc.assert(
      fc.property(linearPair, decimalValue, decimalsOption, roundingMode, ([a, b], value, decimals, rounding) => {
        const viaExpression = convertUnitExpressions({ value, from: `(${a.id})`, to: `${b.id}^1`, decimals, rounding }, options);
        const direct = convertUnits({ value, from: a.id, to: b.id, decimals, rounding });
        expect(viaExpression.result.value).toBe(direct.result.value);
        expect(viaExpression.category).toBe(direct.category);
      }),
      { numRuns: 1000 },
    );
  });

  it('products commute: any order of the same factors is the same expression', () => {
    fc.assert(
      fc.property(
        fc
          .array(term(3), { minLength: 1, maxLength: 4 })
          .chain((t) => fc.tuple(fc.constant(t), fc.shuffledSubarray(t, { minLength: t.length }))),
        ([terms, shuffled]) => {
          const a = compound(`(${written(terms)})`);
          const b = compound(`(${written(shuffled)})`);
          expect(b.canonical).toBe(a.canonical);
          expect(meaning(b)).toEqual(meaning(a));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('(x)^k is x written k times, and x/y is x*y^-1', () => {
    fc.assert(
      fc.property(
        fc.array(term(2), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 2 }),
        fc.array(term(2), { minLength: 1, maxLength: 3 }),
        (terms, k, others) => {
          const x = written(terms);
          const powered = compound(`(${x})^${k}`);
          const repeated = compound(Array.from({ length: k }, () => `(${x})`).join('*'));
          expect(meaning(powered)).toEqual(meaning(repeated));
          expect(powered.canonical).toBe(repeated.canonical);
          const inverse = written(others.map(([u, e]) => [u, -e] as const));
          expect(meaning(compound(`(${x})/(${written(others)})`))).toEqual(meaning(compound(`(${x})*${inverse}`)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the canonical form reads back to the same factor and dimension', () => {
    fc.assert(
      fc.property(fc.array(term(3), { minLength: 1, maxLength: 4 }), (terms) => {
        const first = compound(`(${written(terms)})`);
        fc.pre(first.canonical.length <= MAX_EXPRESSION_LENGTH);
        const again = parseExpression(first.canonical, 'from');
        const back = again.kind === 'compound' ? meaning(again) : meaning(compound(`(${first.canonical})`));
        expect(back).toEqual(meaning(first));
      }),
      { numRuns: 500 },
    );
  });

  it('converting there and back gives the value again whenever the first answer is exact', () => {
    // The same dimension written with other units of the same categories: always convertible.
    const sameDimensionPair = fc
      .array(term(2), { minLength: 1, maxLength: 3 })
      .chain((a) =>
        fc.tuple(
          fc.constant(a),
          fc.tuple(
            ...a.map(([u, e]) => fc.tuple(fc.constantFrom(...multipliable.filter((v) => v.category === u.category)), fc.constant(e))),
          ),
        ),
      );
    let exercised = 0;
    fc.assert(
      fc.property(sameDimensionPair, decimalValue, ([a, b], value) => {
        const from = `(${written(a)})`;
        const to = `(${written(b)})`;
        const printed = convertUnitExpressions({ value, from, to }, options).result.value;
        const exact = PiRational.of(Rational.parse(value)).mul(compound(from).unitFactor).div(compound(to).unitFactor);
        if (!isDecimalText(printed) || !PiRational.of(Rational.parse(printed)).equals(exact)) return; // rounded (π included), or too long to send back
        exercised += 1;
        expect(Rational.parse(convertUnitExpressions({ value: printed, from: to, to: from }, options).result.value)).toEqual(
          Rational.parse(value),
        );
      }),
      { numRuns: 1000 },
    );
    expect(exercised).toBeGreaterThan(100); // the property was not vacuous
  });
});
