/**
 * SI prefixes on the SI units of the catalogue, inside unit expressions: `mg/dL`, `hL`, `GWh`,
 * `µs`. A name the catalogue knows keeps meaning that unit (`kWh`, `mm`, `ft`, `min`): a prefix is
 * tried only on a name it does not know, and only before the symbol of one of PREFIXABLE (case as
 * written, `l` for the litre too). The prefixed units are made once, here: about 300 of them.
 */
import { Rational } from '../rational';
import { UNITS, type UnitDef } from './catalogue';

/** The SI prefixes (SI Brochure 9th ed., 2022), symbol → [name, power of ten]; `u` is also read as micro. */
const PREFIXES: readonly (readonly [string, string, number])[] = [
  ['Q', 'quetta', 30],
  ['R', 'ronna', 27],
  ['Y', 'yotta', 24],
  ['Z', 'zetta', 21],
  ['E', 'exa', 18],
  ['P', 'peta', 15],
  ['T', 'tera', 12],
  ['G', 'giga', 9],
  ['M', 'mega', 6],
  ['k', 'kilo', 3],
  ['h', 'hecto', 2],
  ['da', 'deca', 1],
  ['d', 'deci', -1],
  ['c', 'centi', -2],
  ['m', 'milli', -3],
  ['µ', 'micro', -6],
  ['μ', 'micro', -6],
  ['u', 'micro', -6],
  ['n', 'nano', -9],
  ['p', 'pico', -12],
  ['f', 'femto', -15],
  ['a', 'atto', -18],
  ['z', 'zepto', -21],
  ['y', 'yocto', -24],
  ['r', 'ronto', -27],
  ['q', 'quecto', -30],
];

/** The catalogue's SI units (and the litre, the tonne, the watt-hour and the electronvolt, which the SI lets take prefixes), by the symbols they are written with. */
const PREFIXABLE: Readonly<Record<string, string>> = {
  m: 'meter',
  g: 'gram',
  s: 'second',
  L: 'liter',
  l: 'liter',
  t: 'tonne',
  J: 'joule',
  Wh: 'watt_hour',
  eV: 'electronvolt',
  W: 'watt',
  Pa: 'pascal',
  Hz: 'hertz',
  N: 'newton',
};

function scaled(base: UnitDef, symbol: string, name: string, power: number, written: string): UnitDef {
  const ten = Rational.parse(`1${'0'.repeat(Math.abs(power))}`);
  const factor = power >= 0 ? Rational.parse(base.factor).mul(ten) : Rational.parse(base.factor).div(ten);
  return {
    id: `${name}${base.id}`,
    name: `${name}${base.name}`,
    symbol: `${symbol}${written}`,
    category: base.category,
    kind: 'linear',
    factor: factor.toString(),
    offset: '0',
    exact: true,
    definition: `1e${power} ${base.id}`,
  };
}

const BY_TEXT = new Map<string, UnitDef>();
for (const [written, baseId] of Object.entries(PREFIXABLE)) {
  const base = UNITS.find((u) => u.id === baseId)!;
  for (const [symbol, name, power] of PREFIXES) BY_TEXT.set(`${symbol}${written}`, scaled(base, symbol, name, power, base.symbol));
}

/** Every prefixed unit, one per canonical id (what their exact numbers are computed for). */
export const PREFIXED_UNITS: readonly UnitDef[] = [...new Map([...BY_TEXT.values()].map((u) => [u.id, u])).values()];

/** The prefixed SI unit `text` writes (`dL`: decilitre), or undefined; callers try the catalogue first. */
export function findPrefixedUnit(text: string): UnitDef | undefined {
  return BY_TEXT.get(text);
}
