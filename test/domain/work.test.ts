import { describe, expect, it } from 'vitest';
import { conversionWork, expressionTerms, MAX_REQUEST_WORK, requestWork, valueDigits } from '../../src/domain/work';

describe('expressionTerms: names times the product of the exponents written, capped by the grammar', () => {
  it.each<[unknown, number]>([
    ['m', 1],
    ['ft', 1],
    ['km/h', 1], // a catalogue unit as written
    ['L/100 km', 1],
    ['USD', 1],
    ['EUR/kWh', 2],
    ['m/s^2', 4],
    ['m/s²', 4],
    ['kg*m/s^-2', 6],
    ['rad^12*mrad^-12', 24],
    ['radian^12 · milliradians^-12', 24],
    ['rad¹²×mrad⁻¹²', 24],
    ['(m^4)^3', 12],
    ['m^12/s^12', 24],
    ['m^99', 12],
    ['a b c d e f g h i j k l m n o p q r s t', 16],
    ['1/s', 1],
    ['x'.repeat(201), 1],
    [42, 1],
    [null, 1],
  ])('%j counts %i', (text, terms) => {
    expect(expressionTerms(text)).toBe(terms);
  });
});

describe('valueDigits: the digits of a value that can be valid', () => {
  it.each<[unknown, number]>([
    ['1', 1],
    ['12.5', 3],
    ['-0.001', 4],
    ['1'.repeat(40) + '.' + '2'.repeat(40), 80],
    ['1'.repeat(81), 1], // refused before any work
    ['', 1],
    [12, 1],
  ])('%j has %i', (value, digits) => {
    expect(valueDigits(value)).toBe(digits);
  });
});

describe('requestWork: the sum over conversions, bounded by MAX_REQUEST_WORK where it matters', () => {
  const times = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);
  const forty = '1234567890'.repeat(4);

  it('accepts 1,000 catalogue conversions of the largest values', () => {
    expect(requestWork(times(1000, { value: `${forty}.${forty}`, from: 'm', to: 'ft' }))).toBe(160_000);
  });
  it('accepts 1,000 radian expressions at the exponent bound with 40-digit values', () => {
    expect(requestWork(times(1000, { value: forty, from: 'rad^12*mrad^-12', to: 'kg' }))).toBe(MAX_REQUEST_WORK);
  });
  it('refuses 1,000 of them with 41-digit values', () => {
    expect(requestWork(times(1000, { value: `${forty}.1`, from: 'rad^12*mrad^-12', to: 'kg' }))).toBeGreaterThan(MAX_REQUEST_WORK);
  });
  it('refuses 100 expressions at the bounds with 80-digit values', () => {
    const item = { value: `${forty}.${forty}`, from: 'a b c d e f g h i j k l m n o p^12', to: 'q r s t u v w x y z A B C D E F^12' };
    expect(conversionWork(item)).toBe(80 * 16 * 12 * 2);
    expect(requestWork(times(100, item))).toBeGreaterThan(MAX_REQUEST_WORK);
  });
});
