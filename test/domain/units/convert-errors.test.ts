import { describe, expect, it } from 'vitest';
import { convertUnits, type UnitConversionRequest } from '../../../src/domain/units/convert';
import { expectApiError } from '../helpers';

const request = (overrides: Partial<Record<keyof UnitConversionRequest, unknown>>): UnitConversionRequest =>
  ({ value: '1', from: 'meter', to: 'foot', ...overrides }) as UnitConversionRequest;

describe("convertUnits refuses bad input with the contract's codes", () => {
  it.each([
    [{ value: '1e5' }, 'INVALID_REQUEST', 'value'],
    [{ value: 12.5 }, 'INVALID_REQUEST', 'value'],
    [{ value: undefined }, 'INVALID_REQUEST', 'value'],
    [{ value: ' 1' }, 'INVALID_REQUEST', 'value'],
    [{ decimals: 41 }, 'INVALID_REQUEST', 'decimals'],
    [{ decimals: 1.5 }, 'INVALID_REQUEST', 'decimals'],
    [{ rounding: 'SIDEWAYS' }, 'INVALID_REQUEST', 'rounding'],
    [{ from: 42 }, 'INVALID_REQUEST', 'from'],
    [{ from: '' }, 'INVALID_REQUEST', 'from'],
    [{ to: '' }, 'INVALID_REQUEST', 'to'],
    [{ from: 'foo' }, 'UNKNOWN_UNIT', 'from'],
    [{ to: 'bar2' }, 'UNKNOWN_UNIT', 'to'],
    [{ to: 'meter ' }, 'UNKNOWN_UNIT', 'to'],
    [{ to: 'KM' }, 'UNKNOWN_UNIT', 'to'],
    [{ to: 'kilogram' }, 'INCOMPATIBLE_UNITS', 'to'],
    [{ from: 'celsius', to: 'second' }, 'INCOMPATIBLE_UNITS', 'to'],
    // validation comes before existence: a bad value wins over an unknown unit
    [{ value: 'x', from: 'foo' }, 'INVALID_REQUEST', 'value'],
    [{ from: 'foo', to: 'bar' }, 'UNKNOWN_UNIT', 'from'],
  ] as const)('%j is %s on %s', (overrides, code, param) => {
    expectApiError(() => convertUnits(request(overrides)), code, param);
  });

  it('says which unit is unknown and points to the unit listing (the edge names its route), without echoing megabytes', () => {
    const unknown = expectApiError(() => convertUnits(request({ from: 'foo' })), 'UNKNOWN_UNIT', 'from');
    expect(unknown.message).toBe("Unit 'foo' is not known (did you mean foot?).");
    expect(unknown.details).toEqual({ seeAlso: 'units' });
    const long = expectApiError(() => convertUnits(request({ to: 'x'.repeat(100_000) })), 'UNKNOWN_UNIT', 'to');
    expect(long.message.length).toBeLessThan(120);
  });

  it.each([
    ['meter', 'kg', 'Cannot convert length (meter) to mass (kilogram): length is length, mass is mass.'],
    ['km/h', 'kg', 'Cannot convert speed (kilometer_per_hour) to mass (kilogram): speed is length·time⁻¹, mass is mass.'],
    ['kWh', 'W', 'Cannot convert energy (kilowatt_hour) to power (watt): energy is length²·mass·time⁻², power is length²·mass·time⁻³.'],
    ['°C', 's', 'Cannot convert temperature (celsius) to time (second): temperature is temperature, time is time.'],
    ['rpm', 'degree', 'Cannot convert frequency (revolution_per_minute) to angle (degree): frequency is time⁻¹, angle is angle.'],
    ['km/L', 'L', 'Cannot convert fuel_economy (kilometer_per_liter) to volume (liter): fuel_economy is length⁻², volume is length³.'],
    // A reciprocal unit counts the inverse of its category's dimension (litres per distance is an area), which is said.
    [
      'L/100 km',
      'L',
      'Cannot convert fuel_economy (liter_per_100_kilometers) to volume (liter): fuel_economy is length⁻² ' +
        '(liter_per_100_kilometers counts its reciprocal, length²), volume is length³.',
    ],
    [
      'm²',
      'gal (US)/100 mi',
      'Cannot convert area (square_meter) to fuel_economy (gallon_us_per_100_miles): area is length², ' +
        'fuel_economy is length⁻² (gallon_us_per_100_miles counts its reciprocal, length²).',
    ],
  ])('%s -> %s names both categories, units and dimensions', (from, to, message) => {
    const error = expectApiError(() => convertUnits(request({ from, to })), 'INCOMPATIBLE_UNITS', 'to');
    expect(error.message).toBe(message);
  });
});

describe('convertUnits refuses values with no image', () => {
  it.each([
    ['-273.16', 'celsius', 'kelvin', '-273.16 celsius is below absolute zero (-273.15 celsius).'],
    ['-0.000001', 'kelvin', 'celsius', '-0.000001 kelvin is below absolute zero (0 kelvin).'],
    ['-459.68', 'fahrenheit', 'celsius', '-459.68 fahrenheit is below absolute zero (-459.67 fahrenheit).'],
    ['-1', 'rankine', 'rankine', '-1 rankine is below absolute zero (0 rankine).'],
    ['-218.53', 'reaumur', 'kelvin', '-218.53 reaumur is below absolute zero (-218.52 reaumur).'],
  ])('%s %s (-> %s) is below absolute zero', (value, from, to, message) => {
    expect(expectApiError(() => convertUnits({ value, from, to }), 'INVALID_REQUEST', 'value').message).toBe(message);
  });

  it.each([
    ['0', 'liter_per_100_kilometers', 'kilometer_per_liter'],
    ['0.000', 'liter_per_100_kilometers', 'liter_per_100_kilometers'],
    ['-0', 'gallon_us_per_100_miles', 'mile_per_gallon_us'],
    ['0', 'kilometer_per_liter', 'liter_per_100_kilometers'],
    ['0', 'mile_per_gallon_us', 'gallon_us_per_100_miles'],
  ])('%s %s -> %s would divide by zero', (value, from, to) => {
    expectApiError(() => convertUnits({ value, from, to }), 'INVALID_REQUEST', 'value');
  });

  it('still converts 0 between linear fuel-economy units and absolute zero itself', () => {
    expect(convertUnits({ value: '0', from: 'kilometer_per_liter', to: 'mile_per_gallon_us' }).result.value).toBe('0');
    expect(convertUnits({ value: '-459.67', from: 'fahrenheit', to: 'kelvin' }).result.value).toBe('0');
  });
});

describe('convertUnits with isCurrency: a unit with a currency is INCOMPATIBLE_UNITS', () => {
  const isCurrency = (token: string) => ['USD', 'EUR'].includes(token.toUpperCase());

  it.each([
    [
      'meter',
      'USD',
      'INCOMPATIBLE_UNITS',
      'to',
      "Cannot convert length (meter) to a currency ('USD'): length is length, a currency is money.",
      undefined,
    ],
    [
      'usd',
      'kg',
      'INCOMPATIBLE_UNITS',
      'from',
      "Cannot convert a currency ('usd') to mass (kilogram): a currency is money, mass is mass.",
      undefined,
    ],
    ['USD', 'EUR', 'UNKNOWN_UNIT', 'from', "'USD' and 'EUR' are currencies, not units.", undefined],
    ['USD', 'nope', 'UNKNOWN_UNIT', 'to', "Unit 'nope' is not known.", 'units'],
  ] as const)('%s -> %s is %s on %s', (from, to, code, param, message, seeAlso) => {
    const error = expectApiError(() => convertUnits({ value: '1', from, to }, { isCurrency }), code, param);
    expect(error.message).toBe(message);
    expect(error.details.seeAlso).toBe(seeAlso);
  });

  it('is UNKNOWN_UNIT without isCurrency', () => {
    expectApiError(() => convertUnits({ value: '1', from: 'meter', to: 'USD' }), 'UNKNOWN_UNIT', 'to');
  });
});
