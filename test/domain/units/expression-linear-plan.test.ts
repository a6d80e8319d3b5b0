import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDecimalValue } from '../../../src/domain/decimal';
import { UNITS } from '../../../src/domain/units/catalogue';
import { unitNumbers } from '../../../src/domain/units/factors';
import { conversionAnswer, convertExpressionExact, convertLinearExpressions, parseExpression } from '../../../src/domain/units/expression';
import { decimalValue, decimalsOption, roundingMode } from './arbitraries';

/** Units that may be part of an expression: linear ones, and K and °R (their zero is absolute). */
const multipliable = UNITS.filter((u) => u.kind === 'linear' || (u.kind === 'affine' && unitNumbers(u).offset.isZero()));
const sameCategory = (id: string) => multipliable.filter((u) => u.category === UNITS.find((x) => x.id === id)!.category);

/** `from` as a product of units with exponents; `to` the same with each unit swapped for one of its category. */
const pair = fc
  .array(
    fc.tuple(
      fc.constantFrom(...multipliable),
      fc.integer({ min: -3, max: 3 }).filter((e) => e !== 0),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .chain((terms) => fc.tuple(fc.constant(terms), fc.tuple(...terms.map(([u]) => fc.constantFrom(...sameCategory(u.id)))), fc.boolean()))
  .map(([terms, swapped, whole]) => {
    // By id: a symbol may carry an exponent of its own (yd²), which another would follow.
    const write = (units: readonly { id: string }[]) => terms.map(([, e], i) => `${units[i]!.id}${e === 1 ? '' : `^${e}`}`).join('*');
    // A single term to the power 1 may be sent as the catalogue unit itself (a whole unit, when linear).
    const to = whole && terms.length === 1 && terms[0]![1] === 1 ? swapped[0]!.symbol : `(${write(swapped)})`;
    return { from: write(terms.map(([u]) => u)), to };
  });

describe('the linear plan of a pair of expressions', () => {
  it('answers exactly what the exact path answers, or leaves the pair to it', () => {
    let answered = 0;
    fc.assert(
      fc.property(pair, decimalValue, decimalsOption, roundingMode, ({ from, to }, value, decimals, rounding) => {
        const f = parseExpression(from, 'from');
        const t = parseExpression(to, 'to');
        const linear = convertLinearExpressions(value, f, t, decimals, rounding);
        // Only a whole affine unit (K, °R alone, on either side) is left to the exact path, which
        // also owns its rules (no value below absolute zero).
        const wholeAffine = (e: typeof f) => e.kind === 'unit' && e.unit.kind !== 'linear';
        if (linear === undefined) {
          expect(wholeAffine(f) || wholeAffine(t), `${from} -> ${to}`).toBe(true);
          return;
        }
        answered += 1;
        const exact = conversionAnswer(value, f, t, convertExpressionExact(parseDecimalValue(value), f, t), decimals, rounding);
        expect(linear, `${value} ${from} -> ${to}`).toEqual(exact);
      }),
      { numRuns: 2000 },
    );
    expect(answered).toBeGreaterThan(1500);
  });

  it('leaves currencies, reciprocal and affine whole units to the exact path', () => {
    const none = (from: string, to: string) =>
      convertLinearExpressions('1', parseExpression(from, 'from'), parseExpression(to, 'to'), undefined, 'HALF_UP');
    expect(none('EUR/kWh', 'USD/MWh')).toBeUndefined();
    expect(none('L/100 km', 'mi/gal')).toBeUndefined();
    expect(none('°C', 'K')).toBeUndefined();
    expect(none('km/h', 'kg')).toBeUndefined();
    expect(none('kW*h', 'MJ')).toEqual({
      input: { value: '1', unit: 'hour*kilowatt' },
      result: { value: '3.6', unit: 'megajoule' },
      category: 'energy',
    });
  });
});
