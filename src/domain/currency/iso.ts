import { code as isoListOne } from 'currency-codes';

/**
 * ISO 4217 facts of a currency: the numeric code and the minor units, and an English name.
 *
 * Numeric codes and minor units come from ISO's current list (list one, through `currency-codes`).
 * ISO moves a withdrawn currency to its historic list (list three), which has no package and no
 * minor units: WITHDRAWN holds those the ECB ever quoted or the law replaced by the euro, with the numeric code of list three and
 * the minor units of the last list one that had them. It is asked only when list one has no entry,
 * so BGN is served from the package while it has it and from here once it drops it.
 *
 * English names are CLDR's, from Node's Intl (its full ICU), which knows withdrawn codes too
 * ("Estonian Kroon", "Turkish Lira (1922–2005)"); the table's name is the fallback.
 */
export interface IsoFacts {
  readonly name: string;
  /** Three digits ("978"), or null when no list knows the code. */
  readonly numericCode: string | null;
  /** Digits after the decimal point, or null when no list knows the code. */
  readonly minorUnits: number | null;
}

const WITHDRAWN: Readonly<Record<string, IsoFacts>> = Object.freeze({
  ATS: { name: 'Austrian Schilling', numericCode: '040', minorUnits: 2 },
  BEF: { name: 'Belgian Franc', numericCode: '056', minorUnits: 0 },
  DEM: { name: 'German Mark', numericCode: '276', minorUnits: 2 },
  ESP: { name: 'Spanish Peseta', numericCode: '724', minorUnits: 0 },
  FIM: { name: 'Finnish Markka', numericCode: '246', minorUnits: 2 },
  FRF: { name: 'French Franc', numericCode: '250', minorUnits: 2 },
  IEP: { name: 'Irish Pound', numericCode: '372', minorUnits: 2 },
  ITL: { name: 'Italian Lira', numericCode: '380', minorUnits: 0 },
  LUF: { name: 'Luxembourgian Franc', numericCode: '442', minorUnits: 0 },
  NLG: { name: 'Dutch Guilder', numericCode: '528', minorUnits: 2 },
  PTE: { name: 'Portuguese Escudo', numericCode: '620', minorUnits: 0 },
  BGN: { name: 'Bulgarian Lev', numericCode: '975', minorUnits: 2 },
  CYP: { name: 'Cyprus Pound', numericCode: '196', minorUnits: 2 },
  EEK: { name: 'Estonian Kroon', numericCode: '233', minorUnits: 2 },
  GRD: { name: 'Greek Drachma', numericCode: '300', minorUnits: 0 },
  HRK: { name: 'Croatian Kuna', numericCode: '191', minorUnits: 2 },
  LTL: { name: 'Lithuanian Litas', numericCode: '440', minorUnits: 2 },
  LVL: { name: 'Latvian Lats', numericCode: '428', minorUnits: 2 },
  MTL: { name: 'Maltese Lira', numericCode: '470', minorUnits: 2 },
  ROL: { name: 'Romanian Leu (old)', numericCode: '642', minorUnits: 2 },
  SIT: { name: 'Slovenian Tolar', numericCode: '705', minorUnits: 2 },
  SKK: { name: 'Slovak Koruna', numericCode: '703', minorUnits: 2 },
  TRL: { name: 'Turkish Lira (old)', numericCode: '792', minorUnits: 0 },
});

const DISPLAY_NAMES = new Intl.DisplayNames(['en'], { type: 'currency', fallback: 'none' });

/** The CLDR English name, or undefined when this Node's ICU does not know the code. */
function cldrName(code: string): string | undefined {
  try {
    const name = DISPLAY_NAMES.of(code);
    return name === undefined || name === code ? undefined : name;
  } catch {
    return undefined;
  }
}

/** ISO facts and an English name for an upper-case three-letter code; the code itself names an unknown one. */
export function isoFacts(code: string): IsoFacts {
  const listed = isoListOne(code);
  const fallback = WITHDRAWN[code];
  const name = cldrName(code) ?? listed?.currency ?? fallback?.name ?? code;
  if (listed) return { name, numericCode: listed.number, minorUnits: listed.digits };
  if (fallback) return { ...fallback, name };
  return { name, numericCode: null, minorUnits: null };
}
