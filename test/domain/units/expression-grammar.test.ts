import { describe, expect, it } from 'vitest';
import { parseExpression, resolveExpression } from '../../../src/domain/units/expression';
import { MAX_EXPRESSION_LENGTH } from '../../../src/domain/units/expression/limits';
import { expectApiError } from '../helpers';

/** Made-up set of quoted currencies: the grammar only asks whether a code is one. */
const isCurrency = (code: string): boolean => ['EUR', 'USD', 'GBP', 'JPY'].includes(code);

function read(text: string, param = 'from') {
  const expression = parseExpression(text, param);
  resolveExpression(expression, param, isCurrency);
  return expression;
}

describe('the grammar reads products and quotients of units and currency codes', () => {
  it.each([
    // every form the issue names
    ['m/s^2', 'meter/second^2', 'derived'],
    ['m/s²', 'meter/second^2', 'derived'],
    ['kg*m/s^2', 'kilogram*meter/second^2', 'force'],
    ['kg·m/s²', 'kilogram*meter/second^2', 'force'],
    ['kg⋅m/s²', 'kilogram*meter/second^2', 'force'],
    ['kg×m/s²', 'kilogram*meter/second^2', 'force'],
    ['kg m s^-2', 'kilogram*meter/second^2', 'force'],
    ['kg m s⁻²', 'kilogram*meter/second^2', 'force'],
    ['kW*h', 'hour*kilowatt', 'energy'],
    ['kW h', 'hour*kilowatt', 'energy'],
    ['EUR/kWh', 'EUR/kilowatt_hour', 'derived'],
    ['USD/gal', 'USD/gallon_us', 'derived'],
    ['GB/s', 'gigabyte/second', 'derived'],
    ['m^3', 'meter^3', 'volume'],
    ['m^+3', 'meter^3', 'volume'],
    ['m^0003', 'meter^3', 'volume'],
    ['m^-0', '1', 'derived'],
    ['m⁺³', 'meter^3', 'volume'],
    ['s^-1', '1/second', 'frequency'],
    ['1/s', '1/second', 'frequency'],
    ['mi/gal', 'mile/gallon_us', 'fuel_economy'],
    // parentheses, and exponents on groups
    ['J/(kg*K)', 'joule/(kelvin*kilogram)', 'derived'],
    ['(m/s)^2', 'meter^2/second^2', 'derived'],
    ['((m))', 'meter', 'length'],
    ['W/(m^2 K)', 'watt/(kelvin*meter^2)', 'derived'],
    // spaces around operators are separators, not products
    [' kg * m / s ^2 ', 'kilogram*meter/second^2', 'force'],
    ['kg\tm', 'kilogram*meter', 'derived'],
    // ids any case, symbols exact case, aliases any case
    ['KILOMETER/Hour', 'kilometer/hour', 'speed'],
    ['mW/MW', 'milliwatt/megawatt', 'derived'],
    ['Kilometres/hrs', 'kilometer/hour', 'speed'],
    ['mcg/mL', 'microgram/milliliter', 'derived'],
    // names with a space are read whole; names with a slash or a superscript read as their operators
    ['USD/fl oz', 'USD/fluid_ounce_us', 'derived'],
    ['EUR/oz t', 'EUR/troy_ounce', 'derived'],
    ['EUR/imp fl oz', 'EUR/fluid_ounce_imp', 'derived'],
    ['mpg (US)*L', 'liter*mile_per_gallon_us', 'length'],
    ['EUR/m³', 'EUR/meter^3', 'derived'],
    ['ft·lbf/s', 'foot*pound_force/second', 'power'],
    ['kg km/h', 'kilogram*kilometer/hour', 'derived'],
    // equal names merge; what cancels goes
    ['m*m*m', 'meter^3', 'volume'],
    ['m*meter', 'meter^2', 'area'],
    ['m/m', '1', 'derived'],
    ['m^0', '1', 'derived'],
    ['m^12', 'meter^12', 'derived'],
    ['s^-12', '1/second^12', 'derived'],
    ['(m^4)^3', 'meter^12', 'derived'],
    ['1/(m*s)', '1/(meter*second)', 'derived'],
    ['K/min', 'kelvin/minute', 'derived'],
    ['°R*s', 'rankine*second', 'derived'],
    ['°/s', 'degree/second', 'derived'],
    ['turn/min', 'turn/minute', 'derived'],
  ])('%j is %s (%s)', (text, canonical, category) => {
    const expression = read(text);
    expect(expression.kind).toBe('compound');
    expect({ canonical: expression.canonical, category: expression.category }).toEqual({ canonical, category });
  });

  it.each([
    ['km/h', 'kilometer_per_hour'],
    ['L/100 km', 'liter_per_100_kilometers'],
    ['l/100km', 'liter_per_100_kilometers'],
    ['gal (US)/100 mi', 'gallon_us_per_100_miles'],
    ['mpg (US)', 'mile_per_gallon_us'],
    ['m³', 'cubic_meter'],
    ['ft·lbf', 'foot_pound_force'],
    ['°C', 'celsius'],
    ['KILOMETER', 'kilometer'],
    ['Mbit', 'megabit'],
    ['BTU/h', 'btu_per_hour'],
  ])('the whole string %j is the catalogue unit %s, as today', (text, id) => {
    const expression = read(text);
    expect(expression).toMatchObject({ kind: 'unit', canonical: id, unit: { id } });
  });
});

describe('what the grammar refuses, and why', () => {
  it.each([
    ['m/s/s', /'\/' at character 4 follows the '\/' at character 2, which is ambiguous/],
    ['J/kg*K', /multiplication at character 5 follows the '\/'.*J\/\(kg\*K\)/],
    ['J/kg K', /multiplication at character 5 follows the '\/'/],
    ['m^99999', /the exponent 99999 is out of range \(exponents are integers from -12 to 12\)/],
    ['m^-13', /the exponent -13 is out of range/],
    ['m⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹⁹', /the exponent 999999999999… is out of range/],
    ['(m^4)^4', /the exponent of 'm' comes to 16/],
    ['m^12*m', /meter comes to the power 13 in all/],
    ['m^2^3', /two exponents in a row/],
    ['m^', /'\^' at character 2 must be followed by an integer/],
    ['m^x', /'\^' at character 2 must be followed by an integer/],
    ['m⁻', /'⁻' at character 2 must be followed by an integer/],
    ['^2', /a unit or '\(' was expected, not an exponent/],
    ['*m', /a unit or '\(' was expected, not a multiplication at character 1/],
    ['m*', /a unit or '\(' was expected, not the end/],
    ['m/', /a unit or '\(' was expected, not the end/],
    ['(m', /the '\(' at character 1 is not closed/],
    ['m)', /the '\)' at character 2 has no matching '\('/],
    ['()', /a unit or '\(' was expected, not '\)'/],
    ['m²s', /'s' at character 3 follows a unit without an operator/],
    ['(m)(s)', /'\(' at character 4 follows a unit without an operator/],
    ['2 m', /'2' is a number, not a unit/],
    ['m/100', /'100' is a number/],
    ['°C/min', /'°C' \(celsius\) cannot be part of an expression.*temperature differences in K/],
    ['degF*s', /'degF' \(fahrenheit\) cannot be part of an expression.*temperature differences/],
    ['°Ré/h', /reaumur/],
    ['EUR/L/100 km', /'L\/100 km' \(liter_per_100_kilometers\) is a reciprocal unit/],
    ['mpg*L/100 km', /'L\/100 km'.* reciprocal unit/],
    ['liter_per_100_kilometers*km', /reciprocal unit/],
    ['m '.repeat(17), /17 names, more than the 16/],
    ['m'.repeat(MAX_EXPRESSION_LENGTH + 1), /longer than 200 characters/],
  ])('%j: %s', (text, message) => {
    const error = expectApiError(() => read(text, 'to'), 'INVALID_REQUEST', 'to');
    expect(error.message).toMatch(/^to '.*' is not a valid unit expression: /);
    expect(error.message).toMatch(message);
  });

  it.each([[''], [12], [null], [undefined], [['m']]])('%j is not a unit expression at all', (value) => {
    expectApiError(() => parseExpression(value, 'from'), 'INVALID_REQUEST', 'from');
  });

  it.each([
    ['kilometr', "Unit 'kilometr' is not known (did you mean kilometer?)."],
    ['kilometr/h', "Unit 'kilometr' in 'kilometr/h' is not known (did you mean kilometer?)."],
    ['gramm', "Unit 'gramm' is not known (did you mean gram?)."],
    ['m*gramm', "Unit 'gramm' in 'm*gramm' is not known (did you mean gram?)."],
    ['zorkmid/s', "Unit 'zorkmid' in 'zorkmid/s' is not known."],
    ['usd/gal', "Unit 'usd' in 'usd/gal' is not known (did you mean USD? Currency codes are written in upper case)."],
    ['XYZ/kg', "'XYZ' in 'XYZ/kg' is neither a unit nor a currency the ECB has quoted."],
    ['EUX/kg', "'EUX' in 'EUX/kg' is neither a unit nor a currency the ECB has quoted (did you mean EUR?)."],
    [
      'GPB/kWh',
      "'GPB' in 'GPB/kWh' is neither a unit nor a currency the ECB has quoted (did you mean GBP, GB (gigabyte) or PB (petabyte)?).",
    ],
  ])('%j is UNKNOWN_UNIT: %s', (text, message) => {
    const error = expectApiError(() => read(text), 'UNKNOWN_UNIT', 'from');
    expect(error.message).toBe(message);
    expect(error.details.seeAlso).toBe('units');
  });

  it('refuses a name that is both a unit and a currency code instead of choosing one', () => {
    // No catalogue name is an ECB code today (a test in expression-names checks it); BTU would be.
    const expression = parseExpression('BTU*m/h', 'from');
    const error = expectApiError(() => resolveExpression(expression, 'from', (code) => code === 'BTU'), 'INVALID_REQUEST', 'from');
    expect(error.message).toBe("'BTU' in 'BTU*m/h' is both a unit (btu) and a currency code; write btu for the unit.");
    expect(() => resolveExpression(parseExpression('btu*m/h', 'from'), 'from', (code) => code === 'BTU')).not.toThrow();
  });

  it('does not read one word as several units ("gramm" is not gram·metre, "mcg" is microgram)', () => {
    expect(() => read('gramm')).toThrow(/not known/);
    expect(read('mcg*m').canonical).toBe('meter*microgram');
  });
});

describe('messages never repeat a key or a long input whole', () => {
  it.each(['msr_live_abcdefghijklmnop*m', '(msr_live_abc^4)^4', 'm^2msr_live_abc', '(m)msr_live_abc', `${'1'.repeat(60)}*m`])(
    '%j',
    (text) => {
      let message = '';
      try {
        const expression = parseExpression(text, 'from');
        resolveExpression(expression, 'from', isCurrency);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toMatch(/msr_live/);
      expect(message).not.toMatch(/1{40}/);
    },
  );
});

describe('whitespace is the space and the tab; every other character \\s matches is refused', () => {
  /** Every character of JavaScript's \s but the space and the tab (the Basic Multilingual Plane holds them all). */
  const OTHERS = [
    '\n',
    '\v',
    '\f',
    '\r',
    '\u00A0',
    '\u1680',
    '\u2000',
    '\u2001',
    '\u2002',
    '\u2003',
    '\u2004',
    '\u2005',
    '\u2006',
    '\u2007',
    '\u2008',
    '\u2009',
    '\u200A',
    '\u2028',
    '\u2029',
    '\u202F',
    '\u205F',
    '\u3000',
    '\uFEFF',
  ];
  const hex = (c: string) => `U\\+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

  it('the table is every such character', () => {
    const all = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).filter(
      (c) => /\s/.test(c) && c !== ' ' && c !== '\t',
    );
    expect(all).toEqual(OTHERS);
  });

  it.each(
    OTHERS.flatMap(
      (c) =>
        [
          [`kg${c}m`, c, 3],
          [`${c}kg*m`, c, 1],
          [`kg*m${c}`, c, 5],
          [`fl oz${c}/h`, c, 6],
        ] as const,
    ),
  )('%j is INVALID_REQUEST, naming the character and where it is', (text, c, position) => {
    const error = expectApiError(() => read(text), 'INVALID_REQUEST', 'from');
    expect(error.message).toMatch(
      new RegExp(`${hex(c)} at character ${position} is not whitespace here: separate names with a space, a tab or '\\*'`),
    );
  });

  it.each([
    ['kg m', 'kilogram*meter'],
    ['kg\tm', 'kilogram*meter'],
    [' \tkg \t* m\t', 'kilogram*meter'],
    ['USD/fl oz', 'USD/fluid_ounce_us'],
  ])('a space and a tab separate: %j is %s', (text, canonical) => {
    expect(read(text).canonical).toBe(canonical);
  });
});
