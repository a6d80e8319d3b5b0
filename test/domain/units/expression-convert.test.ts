import { describe, expect, it } from 'vitest';
import { Rational } from '../../../src/domain/rational';
import { UNITS } from '../../../src/domain/units/catalogue';
import { convertUnits } from '../../../src/domain/units/convert';
import { aliasesOf } from '../../../src/domain/units/lookup';
import { convertUnitExpressions, parseExpression, type ExpressionConversionRequest } from '../../../src/domain/units/expression';
import { expectApiError } from '../helpers';

/** Made-up rates in the ECB's form (units per euro), not real ECB data. */
const RATES: Record<string, string> = { EUR: '1', USD: '1.0811', GBP: '0.85550', JPY: '163.45' };
const asked: string[] = [];
const options = {
  isCurrency: (code: string) => Object.hasOwn(RATES, code),
  rateOf: (code: string) => {
    asked.push(code);
    return Rational.parse(RATES[code]!);
  },
};
const convert = (request: ExpressionConversionRequest) => convertUnitExpressions(request, options);

describe('the three examples, computed by hand', () => {
  it('an energy price: 0.25 EUR/kWh is 0.25 × 1000 × 1.0811 = 270.275 USD/MWh', () => {
    expect(convert({ value: '0.25', from: 'EUR/kWh', to: 'USD/MWh' })).toEqual({
      input: { value: '0.25', unit: 'EUR/kilowatt_hour' },
      result: { value: '270.275', unit: 'USD/megawatt_hour' },
      category: 'derived',
      money: { currencies: ['EUR', 'USD'], rate: '1.0811' },
    });
  });

  it('a fuel price: 3.459 USD/gal is 3.459 / 1.0811 / 3.785411784 = 1441250000000/1705170283201 EUR/L', () => {
    expect(convert({ value: '3.459', from: 'USD/gal', to: 'EUR/L' })).toEqual({
      input: { value: '3.459', unit: 'USD/gallon_us' },
      // 0.84522350301251999703919510576828518641300…: 40 significant digits, the trailing zero dropped
      result: { value: '0.845223503012519997039195105768285186413', unit: 'EUR/liter' },
      category: 'derived',
      money: { currencies: ['EUR', 'USD'], rate: '0.9249838127832762926648783646286189991675' },
    });
    expect(convert({ value: '3.459', from: 'USD/gal', to: 'EUR/L', decimals: 3 }).result.value).toBe('0.845');
  });

  it('an acceleration: 9.80665 m/s² is 9.80665 / 0.3048 = 196133/6096 ft/s²', () => {
    const answer = convert({ value: '9.80665', from: 'm/s²', to: 'ft/s²' });
    expect(answer).toEqual({
      input: { value: '9.80665', unit: 'meter/second^2' },
      result: { value: '32.17404855643044619422572178477690288714', unit: 'foot/second^2' },
      category: 'derived',
    });
    expect(convert({ value: '9.80665', from: 'm/s^2', to: 'ft/s^2', decimals: 40 }).result.value).toBe(
      '32.1740485564304461942257217847769028871391',
    );
    expect(convert({ value: '9.80665', from: 'm/s^2', to: 'ft/s^2', decimals: 2, rounding: 'UP' }).result.value).toBe('32.18');
  });
});

describe('conversions between expressions', () => {
  it.each([
    [{ value: '1', from: 'kg*m/s^2', to: 'N' }, '1', 'newton', 'force'],
    [{ value: '1', from: 'kg m s^-2', to: 'dyn' }, '100000', 'dyne', 'force'],
    [{ value: '1', from: 'kW*h', to: 'kWh' }, '1', 'kilowatt_hour', 'energy'],
    [{ value: '1', from: 'GB/s', to: 'Mbit/s' }, '8000', 'megabit/second', 'derived'],
    [{ value: '1', from: 'm^3', to: 'L' }, '1000', 'liter', 'volume'],
    [{ value: '60', from: 's^-1', to: 'rpm' }, '3600', 'revolution_per_minute', 'frequency'],
    [{ value: '1', from: 'Pa', to: 'N/m^2' }, '1', 'newton/meter^2', 'pressure'],
    [{ value: '100', from: 'km/h', to: 'm/s' }, '27.77777777777777777777777777777777777778', 'meter_per_second', 'speed'],
    [{ value: '100', from: 'km/h', to: 'm s^-1' }, '27.77777777777777777777777777777777777778', 'meter/second', 'speed'],
    // a whole reciprocal unit converts against an expression through its category's base unit
    [{ value: '10', from: 'L/100 km', to: 'mi/gal' }, '23.52145833333333333333333333333333333333', 'mile/gallon_us', 'fuel_economy'],
    [
      { value: '23.52145833333333333333333333333333333333', from: 'mi/gal', to: 'L/100 km', decimals: 6 },
      '10.000000',
      'liter_per_100_kilometers',
      'fuel_economy',
    ],
    // a whole affine unit converts as an absolute temperature, as it does alone
    [{ value: '25', from: '°C', to: 'K*m/m' }, '298.15', 'kelvin', 'temperature'],
    [{ value: '1', from: 'GBP/kg', to: 'JPY/lb' }, '86.66238793278784336645236703682057276447', 'JPY/pound', 'derived'],
    [{ value: '2', from: 'EUR', to: 'EUR*m/m' }, '2', 'EUR', 'derived'],
  ])('%j is %s %s (%s)', (request, value, unit, category) => {
    const answer = convert(request);
    expect(answer.result).toEqual({ value, unit });
    expect(answer.category).toBe(category);
  });

  it('asks for the rates of the currencies that occur, and of no other', () => {
    asked.length = 0;
    convert({ value: '1', from: 'km/h', to: 'm/s^1' });
    expect(asked).toEqual([]);
    convert({ value: '1', from: 'GBP/kg', to: 'JPY/kg' });
    expect(asked.sort()).toEqual(['GBP', 'JPY']);
  });

  it('needs no rates at all without currencies', () => {
    expect(convertUnitExpressions({ value: '1', from: 'm/s^2', to: 'ft/s^2' }, { isCurrency: () => false }).result.value).toBe(
      '3.280839895013123359580052493438320209974',
    );
  });

  it('answers INCOMPATIBLE_UNITS with both dimensions written out', () => {
    const error = expectApiError(() => convert({ value: '1', from: 'km/h', to: 'kg' }), 'INCOMPATIBLE_UNITS', 'to');
    expect(error.message).toBe("Cannot convert 'km/h' to 'kg': 'km/h' is length·time⁻¹, 'kg' is mass.");
    expect(expectApiError(() => convert({ value: '1', from: 'EUR/kWh', to: 'USD/kg' }), 'INCOMPATIBLE_UNITS', 'to').message).toBe(
      "Cannot convert 'EUR/kWh' to 'USD/kg': 'EUR/kWh' is length⁻²·mass⁻¹·time²·money, 'USD/kg' is mass⁻¹·money.",
    );
    expect(expectApiError(() => convert({ value: '1', from: 'm/m', to: 's' }), 'INCOMPATIBLE_UNITS', 'to').message).toBe(
      "Cannot convert 'm/m' to 's': 'm/m' is dimensionless, 's' is time.",
    );
    // A whole reciprocal unit converts within its category's dimension; the message says what it counts.
    expect(expectApiError(() => convert({ value: '1', from: 'L/100 km', to: 'm^2' }), 'INCOMPATIBLE_UNITS', 'to').message).toBe(
      "Cannot convert 'L/100 km' to 'm^2': 'L/100 km' is length⁻² (liter_per_100_kilometers counts its reciprocal, length²), 'm^2' is length².",
    );
    // turn/min is an angle per time; the catalogue counts rpm as a frequency (1/60 Hz)
    expectApiError(() => convert({ value: '1', from: 'turn/min', to: 'rpm' }), 'INCOMPATIBLE_UNITS', 'to');
  });

  it('keeps the contract order: value, decimals, rounding, then from, then to', () => {
    expectApiError(() => convert({ value: '1e3', from: 'm^99', to: 'kilometr' }), 'INVALID_REQUEST', 'value');
    expectApiError(() => convert({ value: '1', decimals: 41, from: 'm^99', to: 'kilometr' }), 'INVALID_REQUEST', 'decimals');
    expectApiError(() => convert({ value: '1', from: 'm^99', to: 'kilometr' }), 'INVALID_REQUEST', 'from');
    expectApiError(() => convert({ value: '1', from: 'm', to: 'kilometr/s' }), 'UNKNOWN_UNIT', 'to');
  });

  it('refuses what convertUnits refuses for a whole unit: below absolute zero, 0 in a reciprocal unit', () => {
    expectApiError(() => convert({ value: '-300', from: '°C', to: 'K*m/m' }), 'INVALID_REQUEST', 'value');
    expectApiError(() => convert({ value: '0', from: 'L/100 km', to: 'mi/gal' }), 'INVALID_REQUEST', 'value');
    expectApiError(() => convert({ value: '0', from: 'mi/gal', to: 'L/100 km' }), 'INVALID_REQUEST', 'value');
  });
});

describe('every catalogue unit alone', () => {
  it.each(UNITS.map((u) => [u.id, u]))(
    '%s is itself by id, symbol and every alias, and converts to itself as convertUnits does',
    (_, unit) => {
      for (const name of [unit.id, unit.id.toUpperCase(), unit.symbol, ...aliasesOf(unit.id)]) {
        const expression = parseExpression(name, 'from');
        expect(expression).toMatchObject({ kind: 'unit', canonical: unit.id, category: unit.category });
      }
      const value = unit.kind === 'affine' ? '300' : '12.5';
      expect(convert({ value, from: unit.symbol, to: unit.id })).toEqual(convertUnits({ value, from: unit.symbol, to: unit.id }));
    },
  );
});
