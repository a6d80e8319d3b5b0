import { describe, expect, it } from 'vitest';
import { ECB_CURRENCY_CODES } from '../../../src/domain/currency/codes';
import { CATEGORIES, UNITS, type UnitDef } from '../../../src/domain/units/catalogue';
import { categoryDimension, categoryOfDimension, dimensionKey, formatDimension } from '../../../src/domain/units/dimensions';
import { unitNumbers } from '../../../src/domain/units/factors';
import { aliasesOf, findUnit } from '../../../src/domain/units/lookup';
import { convertExpressionExact, parseExpression, type Compound } from '../../../src/domain/units/expression';
import { Rational } from '../../../src/domain/rational';
import { WHOLE_NAMES } from '../../../src/domain/units/expression/names';

const compound = (text: string): Compound => {
  const expression = parseExpression(text, 'from');
  if (expression.kind !== 'compound') throw new Error(`${text} is a whole unit`);
  return expression;
};
const inBaseUnits = (unit: UnitDef) => ({
  factor: unitNumbers(unit).factor.mul(categoryDimension(unit.category).baseFactor).toString(),
  dimension: formatDimension(categoryDimension(unit.category).dimension),
});
const asCompound = (text: string) => {
  const c = compound(text);
  return { factor: c.unitFactor.toString(), dimension: formatDimension(c.dimension) };
};

describe('dimensions of the categories', () => {
  it.each([
    ['length', 'length'],
    ['mass', 'mass'],
    ['volume', 'length³'],
    ['area', 'length²'],
    ['temperature', 'temperature'],
    ['time', 'time'],
    ['speed', 'length·time⁻¹'],
    ['pressure', 'length⁻¹·mass·time⁻²'],
    ['energy', 'length²·mass·time⁻²'],
    ['power', 'length²·mass·time⁻³'],
    ['data', 'data'],
    ['angle', 'angle'],
    ['frequency', 'time⁻¹'],
    ['force', 'length·mass·time⁻²'],
    ['fuel_economy', 'length⁻²'],
  ])('%s is %s', (category, written) => {
    expect(formatDimension(categoryDimension(category).dimension)).toBe(written);
    expect(categoryOfDimension(categoryDimension(category).dimension)).toBe(category);
  });

  it('gives each of the 15 categories its own dimension, so `category` of an expression is never a guess', () => {
    expect(new Set(CATEGORIES.map((c) => dimensionKey(categoryDimension(c.id).dimension))).size).toBe(15);
  });
});

describe('catalogue units defined by other units agree with the expressions that define them', () => {
  it.each([
    ['N', 'kg*m/s^2'],
    ['J', 'N*m'],
    ['W', 'J/s'],
    ['Pa', 'N/m^2'],
    ['Hz', '1/s'],
    ['kWh', 'kW*h'],
    ['Wh', 'W*h'],
    ['mL', 'cm^3'],
    ['psi', 'lbf/in^2'],
    ['slug', 'lbf*s^2/ft'],
    ['mph', 'mi/h'],
    ['kn', 'nmi/h'],
    ['erg', 'dyn*cm'],
    ['dyn', 'g*cm/s^2'],
    ['mpg (imp)', 'mi/imp gal'],
    ['mpg (US)', 'mi/gal'],
    ['km/L', 'km L^-1'],
    ['km²', 'km*km'],
    ['mm²', 'mm^2'],
  ])('%s is %s', (name, text) => {
    expect(asCompound(text)).toEqual(inBaseUnits(findUnit(name)!));
  });

  // A name with a slash, a superscript or "·" is read as the operators in it when it is part of a
  // larger expression: that reading must be the unit itself.
  const operatorNames = UNITS.filter((u) => u.kind === 'linear').flatMap((unit) =>
    [unit.symbol, ...aliasesOf(unit.id)].filter((name) => /[/·²³]/.test(name) && !/\s/.test(name)).map((name) => [name, unit] as const),
  );

  it('covers the slash, superscript and "·" names of the catalogue', () => {
    expect(operatorNames.map(([name]) => name)).toEqual(
      expect.arrayContaining(['m/s', 'km/h', 'ft/s', 'BTU/h', 'km/L', 'm³', 'mi²', 'ft·lbf']),
    );
  });

  it.each(operatorNames)('(%s) read as operators is the unit itself', (name, unit) => {
    expect(asCompound(`(${name})`)).toEqual(inBaseUnits(unit));
  });
});

describe('names the tokenizer reads whole', () => {
  it('are the names with a space or parentheses, and the reciprocal names with a slash', () => {
    expect(WHOLE_NAMES.map((n) => n.text).sort()).toEqual(
      [
        'L/100 km',
        'fl oz',
        'gal (US)/100 mi',
        'gal/100mi',
        'imp fl oz',
        'imp gal',
        'imp pt',
        'l/100km',
        'mpg (US)',
        'mpg (imp)',
        'oz t',
      ].sort(),
    );
  });

  it.each(WHOLE_NAMES.filter((n) => n.unit.kind === 'linear').map((n) => [n.text, n.unit]))(
    '%s inside an expression is %s',
    (text, unit) => {
      expect(compound(`${text}*s/s`).canonical).toBe((unit as UnitDef).id);
    },
  );
});

describe('currency codes and unit names', () => {
  it('no currency the ECB has ever quoted is a catalogue name, in any case the lookup accepts', () => {
    for (const code of ECB_CURRENCY_CODES) expect(findUnit(code), code).toBeUndefined();
  });
});

describe('a temperature scale with an offset inside an expression', () => {
  it.each([
    ['°F/min', '°F', '°R', '1 °R', '°R/min'],
    ['°C/min', '°C', 'K', '1 K', 'K/min'],
    ['°Ré*s', '°Ré', 'K', '1.25 K', 'K/min'],
  ])('%s names its own scale and the one to write differences in', (text, scale, difference, step, example) => {
    const error = (() => {
      try {
        parseExpression(text, 'from');
      } catch (e) {
        return e as Error;
      }
      throw new Error('expected a refusal');
    })();
    expect(error.message).toContain(`${scale}/min would mix up temperatures`);
    expect(error.message).toContain(
      `write temperature differences in ${difference} (a difference of 1 ${scale} is ${step}), as in ${example}`,
    );
  });
});

describe('SI prefixes on the SI units of the catalogue', () => {
  it.each([
    ['mg/dL', 'milligram/deciliter'],
    ['hL', 'hectoliter'],
    ['GWh', 'gigawatt_hour'],
    ['dl', 'deciliter'],
    ['µs^-1', '1/microsecond'],
    ['kPa*dam', 'decameter*kilopascal'],
  ])('%s is %s', (text, canonical) => {
    expect(parseExpression(text, 'from').canonical).toBe(canonical);
  });

  it('leaves every catalogue name its catalogue meaning (kWh, mm, min, ft, pt, ha)', () => {
    for (const unit of UNITS) {
      const expression = parseExpression(unit.symbol.includes(' ') ? unit.id : unit.symbol, 'from');
      expect(expression.kind === 'unit' ? expression.unit : undefined, unit.symbol).toBe(findUnit(unit.symbol) ?? findUnit(unit.id));
    }
  });

  it('converts a prefixed unit exactly by its power of ten: 100 mg/dL is 1 g/L, 1 hL is 100 L', () => {
    const value = (from: string, to: string, v: string) => {
      const exact = convertExpressionExact(Rational.parse(v), parseExpression(from, 'from'), parseExpression(to, 'to'));
      return exact.value.coefficient.toString();
    };
    expect(value('mg/dL', 'g/L', '100')).toBe('1');
    expect(value('hL', 'L', '1')).toBe('100');
    expect(value('GWh', 'MJ', '1')).toBe('3600000');
  });

  it('reads no prefix before a name that is not an SI unit symbol', () => {
    expect(() => parseExpression('kft', 'from')).not.toThrow(); // compiled, then refused as unknown by resolveExpression
    const kft = parseExpression('kft', 'from');
    expect(kft.kind === 'compound' && kft.pending.some((a) => a.kind === 'unknown')).toBe(true);
  });
});
