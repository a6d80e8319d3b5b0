import { describe, expect, it } from 'vitest';
import { ROUNDING_MODES } from '../../../src/domain/decimal';
import { CATEGORIES } from '../../../src/domain/units/catalogue';
import { convertUnits } from '../../../src/domain/units/convert';

type Case = readonly [value: string, from: string, to: string, expected: string];

/** Expected values come from the definitions (1 in = 2.54 cm, 1 lb = 0.45359237 kg, ...), not from the code. */
const CASES: Record<string, readonly Case[]> = {
  length: [
    ['1', 'inch', 'centimeter', '2.54'],
    ['1', 'mile', 'kilometer', '1.609344'],
    ['1', 'mile', 'foot', '5280'],
    ['1000', 'mil', 'inch', '1'],
    ['10', 'angstrom', 'nanometer', '1'],
    ['1', 'nautical_mile', 'meter', '1852'],
    ['1', 'us_survey_foot', 'meter', '0.3048006096012192024384048768097536195072'],
    ['1', 'foot', 'us_survey_foot', '0.999998'],
    ['1', 'light_year', 'astronomical_unit', '63241.07708426628026865358318231731355786'],
    ['-3', 'yard', 'foot', '-9'],
  ],
  mass: [
    ['1', 'pound', 'kilogram', '0.45359237'],
    ['16', 'ounce', 'pound', '1'],
    ['1', 'stone', 'pound', '14'],
    ['7000', 'grain', 'pound', '1'],
    ['1', 'troy_ounce', 'gram', '31.1034768'],
    ['5', 'carat', 'gram', '1'],
    ['1', 'long_ton', 'short_ton', '1.12'],
    ['1', 'slug', 'kilogram', '14.59390293720636482939632545931758530184'],
  ],
  volume: [
    ['1', 'gallon_us', 'liter', '3.785411784'],
    ['1', 'gallon_us', 'fluid_ounce_us', '128'],
    ['1', 'cup_us', 'tablespoon_us', '16'],
    ['3', 'teaspoon_us', 'tablespoon_us', '1'],
    ['1', 'gallon_imp', 'pint_imp', '8'],
    ['1', 'barrel_oil', 'gallon_us', '42'],
    ['1', 'cubic_foot', 'cubic_inch', '1728'],
    ['1', 'gallon_us', 'cubic_inch', '231'],
    ['1000', 'cubic_centimeter', 'liter', '1'],
    ['1', 'gallon_imp', 'gallon_us', '1.200949925504854929674409234628197585809'],
  ],
  area: [
    ['1', 'hectare', 'square_meter', '10000'],
    ['1', 'acre', 'square_foot', '43560'],
    ['1', 'square_mile', 'acre', '640'],
    ['1', 'square_inch', 'square_centimeter', '6.4516'],
    ['1', 'acre', 'hectare', '0.40468564224'],
  ],
  temperature: [
    ['100', 'celsius', 'fahrenheit', '212'],
    ['-40', 'celsius', 'fahrenheit', '-40'],
    ['0', 'kelvin', 'celsius', '-273.15'],
    ['0', 'kelvin', 'fahrenheit', '-459.67'],
    ['32', 'fahrenheit', 'celsius', '0'],
    ['98.6', 'fahrenheit', 'celsius', '37'],
    ['1', 'fahrenheit', 'celsius', '-17.22222222222222222222222222222222222222'],
    ['491.67', 'rankine', 'celsius', '0'],
    ['80', 'reaumur', 'celsius', '100'],
    ['-273.15', 'celsius', 'kelvin', '0'],
    ['20', 'celsius', 'kelvin', '293.15'],
  ],
  time: [
    ['1', 'day', 'hour', '24'],
    ['1', 'year', 'day', '365.25'],
    ['1', 'month', 'day', '30.4375'],
    ['1', 'century', 'decade', '10'],
    ['1500', 'millisecond', 'second', '1.5'],
    ['1', 'minute', 'hour', '0.01666666666666666666666666666666666666667'],
    ['1', 'week', 'minute', '10080'],
    ['1', 'microsecond', 'nanosecond', '1000'],
  ],
  speed: [
    ['36', 'kilometer_per_hour', 'meter_per_second', '10'],
    ['1', 'mile_per_hour', 'kilometer_per_hour', '1.609344'],
    ['1', 'knot', 'kilometer_per_hour', '1.852'],
    ['1', 'foot_per_second', 'mile_per_hour', '0.6818181818181818181818181818181818181818'],
    ['100', 'kilometer_per_hour', 'mile_per_hour', '62.13711922373339696174341843633182215859'],
  ],
  pressure: [
    ['1', 'atmosphere', 'pascal', '101325'],
    ['1', 'bar', 'kilopascal', '100'],
    ['760', 'torr', 'atmosphere', '1'],
    ['1', 'hectopascal', 'millibar', '1'],
    ['1', 'megapascal', 'bar', '10'],
    ['1', 'inch_of_mercury', 'hectopascal', '33.86388640341'],
    ['1', 'psi', 'kilopascal', '6.894757293168361336722673445346890693781'],
    ['1', 'technical_atmosphere', 'pascal', '98066.5'],
  ],
  energy: [
    ['1', 'kilowatt_hour', 'megajoule', '3.6'],
    ['1', 'kilocalorie', 'joule', '4184'],
    ['1', 'btu', 'joule', '1055.05585262'],
    ['1', 'electronvolt', 'joule', '0.0000000000000000001602176634'],
    ['1', 'joule', 'erg', '10000000'],
    ['1', 'therm_us', 'btu', '99976.12897749682358422857160530520009353'],
    ['1', 'foot_pound_force', 'joule', '1.3558179483314004'],
  ],
  power: [
    ['1', 'kilowatt', 'watt', '1000'],
    ['1', 'horsepower', 'watt', '745.69987158227022'],
    ['1', 'metric_horsepower', 'watt', '735.49875'],
    ['1', 'ton_of_refrigeration', 'btu_per_hour', '12000'],
    ['1', 'gigawatt', 'milliwatt', '1000000000000'],
    ['1', 'horsepower', 'metric_horsepower', '1.013869665424'],
  ],
  data: [
    ['1', 'byte', 'bit', '8'],
    ['1', 'kibibyte', 'byte', '1024'],
    ['1', 'gigabyte', 'megabit', '8000'],
    ['1', 'tebibyte', 'gibibyte', '1024'],
    ['1', 'mebibyte', 'kilobyte', '1048.576'],
    ['1', 'petabyte', 'terabyte', '1000'],
  ],
  angle: [
    ['1', 'radian', 'degree', '57.29577951308232087679815481410517033241'],
    ['180', 'degree', 'radian', '3.141592653589793238462643383279502884197'],
    ['1', 'degree', 'radian', '0.01745329251994329576923690768488612713443'],
    ['1000', 'milliradian', 'radian', '1'],
    ['1', 'milliradian', 'arcsecond', '206.2648062470963551564733573307786131967'],
    ['1', 'turn', 'degree', '360'],
    ['400', 'gradian', 'turn', '1'],
    ['1', 'degree', 'arcsecond', '3600'],
  ],
  frequency: [
    ['1', 'kilohertz', 'hertz', '1000'],
    ['60', 'revolution_per_minute', 'hertz', '1'],
    ['1', 'terahertz', 'gigahertz', '1000'],
    ['1', 'hertz', 'revolution_per_minute', '60'],
  ],
  force: [
    ['1', 'kilogram_force', 'newton', '9.80665'],
    ['1', 'pound_force', 'newton', '4.4482216152605'],
    ['1', 'kip', 'pound_force', '1000'],
    ['16', 'ounce_force', 'pound_force', '1'],
    ['1', 'newton', 'dyne', '100000'],
    ['1', 'poundal', 'newton', '0.138254954376'],
  ],
  fuel_economy: [
    ['10', 'liter_per_100_kilometers', 'kilometer_per_liter', '10'],
    ['5', 'liter_per_100_kilometers', 'kilometer_per_liter', '20'],
    ['1', 'mile_per_gallon_us', 'kilometer_per_liter', '0.4251437074302720034011496594421760272092'],
    ['1', 'gallon_us_per_100_miles', 'mile_per_gallon_us', '100'],
    ['50', 'mile_per_gallon_us', 'gallon_us_per_100_miles', '2'],
    ['25', 'mile_per_gallon_us', 'liter_per_100_kilometers', '9.408583333333333333333333333333333333333'],
    ['8', 'liter_per_100_kilometers', 'gallon_us_per_100_miles', '3.401149659442176027209197275537408217674'],
    ['1', 'mile_per_gallon_imp', 'mile_per_gallon_us', '0.8326741846289888673563435831670732431606'],
    ['-10', 'liter_per_100_kilometers', 'kilometer_per_liter', '-10'],
  ],
};

describe('convertUnits computes each category exactly from the catalogue definitions', () => {
  it('has at least three worked cases for every category', () => {
    expect(CATEGORIES.filter((c) => (CASES[c.id]?.length ?? 0) < 3).map((c) => c.id)).toEqual([]);
  });

  const rows = Object.entries(CASES).flatMap(([category, cases]) => cases.map((c) => [category, ...c] as const));
  it.each(rows)('%s: %s %s to %s is %s', (category, value, from, to, expected) => {
    expect(convertUnits({ value, from, to })).toEqual({
      input: { value, unit: from },
      result: { value: expected, unit: to },
      category,
    });
  });
});

describe('convertUnits answers with canonical ids and normalised numbers', () => {
  it.each([
    ['1', 'in', 'cm', 'inch', 'centimeter', '2.54'],
    ['100', '°C', '°F', 'celsius', 'fahrenheit', '212'],
    ['2', 'FEET', 'Metres', 'foot', 'meter', '0.6096'],
    ['10', 'L/100 km', 'km/L', 'liter_per_100_kilometers', 'kilometer_per_liter', '10'],
  ])('%s %s -> %s names %s and %s', (value, from, to, fromId, toId, expected) => {
    const conversion = convertUnits({ value, from, to });
    expect([conversion.input.unit, conversion.result.unit, conversion.result.value]).toEqual([fromId, toId, expected]);
  });

  it.each([
    ['12.50', 'meter', '12.5'],
    ['-0', 'meter', '0'],
    ['007.000', 'gram', '7'],
    ['-0.0', 'celsius', '0'],
    ['0', 'kelvin', '0'],
    ['-12.5', 'liter_per_100_kilometers', '-12.5'],
  ])('%s %s to itself is %s, and input.value stays as sent', (value, unit, expected) => {
    expect(convertUnits({ value, from: unit, to: unit })).toMatchObject({ input: { value }, result: { value: expected } });
  });
});

const RAD_DOWN = '57.2957795130823208767981548141051703324054';
const RAD_UP = '57.2957795130823208767981548141051703324055';

describe('convertUnits rounds once to decimals with the requested mode (HALF_UP, HALF_EVEN, DOWN, UP, FLOOR, CEILING)', () => {
  // 25 mm = 2.5 cm exactly: a tie at 0 places; 1 minute = 0.01666... h
  it.each([
    ['25', 'millimeter', 'centimeter', 0, ['3', '2', '2', '3', '2', '3']],
    ['-25', 'millimeter', 'centimeter', 0, ['-3', '-2', '-2', '-3', '-3', '-2']],
    ['1', 'minute', 'hour', 3, ['0.017', '0.017', '0.016', '0.017', '0.016', '0.017']],
    ['-1', 'minute', 'hour', 3, ['-0.017', '-0.017', '-0.016', '-0.017', '-0.017', '-0.016']],
    ['1', 'foot', 'inch', 2, ['12.00', '12.00', '12.00', '12.00', '12.00', '12.00']],
    // 180/pi = 57.29577951308232087679815481410517033240547...: the 41st place decides
    ['1', 'radian', 'degree', 40, [RAD_UP, RAD_UP, RAD_DOWN, RAD_UP, RAD_DOWN, RAD_UP]],
    ['-0.001', 'meter', 'kilometer', 2, ['0.00', '0.00', '0.00', '-0.01', '-0.01', '0.00']],
  ] as const)('%s %s -> %s to %i places, per mode', (value, from, to, decimals, expected) => {
    const results = ROUNDING_MODES.map((rounding) => convertUnits({ value, from, to, decimals, rounding }).result.value);
    expect(results).toEqual(expected);
  });
});
