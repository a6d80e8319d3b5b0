/**
 * Currencies the ECB stopped quoting because the law replaced them: by the euro (an irrevocable
 * conversion rate fixed by the EU Council) or by a redenomination (a new unit worth a fixed number
 * of old ones). These are legal constants, not market data, so they live in this small table; the
 * dates the ECB last quoted each one are computed from the stored history (registry.ts).
 *
 * `rate` is the number of units of the old currency per ONE unit of the successor, written exactly
 * as the legal text writes it (six significant digits for euro rates: "7.53450", not "7.5345"):
 * "1 EUR = 7.53450 HRK", "1 RON = 10000 ROL".
 *
 * Euro rates: Article 1 of Council Regulation (EC) No 2866/98 of 31 December 1998 on the conversion
 * rates between the euro and the currencies of the Member States adopting the euro, as amended by
 * the regulation named on each row; each applies from `since`, the day the country adopted the euro.
 */
export interface Succession {
  /** The currency replaced. */
  readonly code: string;
  /** The currency that replaced it. */
  readonly successor: string;
  /** Units of `code` per one unit of `successor`, as the legal text writes it. */
  readonly rate: string;
  /** The first day the successor was the currency (YYYY-MM-DD). */
  readonly since: string;
  readonly kind: 'euro' | 'redenomination';
  /** The legal act that fixed the rate. */
  readonly source: string;
}

const REG_2866_98 = 'Council Regulation (EC) No 2866/98, Article 1';

export const SUCCESSIONS: readonly Succession[] = Object.freeze([
  // The eleven members of 1 January 1999: Article 1 of Council Regulation (EC) No 2866/98 as adopted.
  ...(
    [
      ['ATS', '13.7603'],
      ['BEF', '40.3399'],
      ['DEM', '1.95583'],
      ['ESP', '166.386'],
      ['FIM', '5.94573'],
      ['FRF', '6.55957'],
      ['IEP', '0.787564'],
      ['ITL', '1936.27'],
      ['LUF', '40.3399'],
      ['NLG', '2.20371'],
      ['PTE', '200.482'],
    ] as const
  ).map(([code, rate]): Succession => ({ code, successor: 'EUR', rate, since: '1999-01-01', kind: 'euro', source: REG_2866_98 })),
  // Greece: Council Regulation (EC) No 1478/2000 of 19 June 2000. The ECB's published history has no
  // GRD column, so this row only serves a data set that quotes GRD.
  {
    code: 'GRD',
    successor: 'EUR',
    rate: '340.750',
    since: '2001-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EC) No 1478/2000`,
  },
  // Slovenia: Council Regulation (EC) No 1086/2006 of 11 July 2006.
  {
    code: 'SIT',
    successor: 'EUR',
    rate: '239.640',
    since: '2007-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EC) No 1086/2006`,
  },
  // Cyprus: Council Regulation (EC) No 1135/2007 of 10 July 2007.
  {
    code: 'CYP',
    successor: 'EUR',
    rate: '0.585274',
    since: '2008-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EC) No 1135/2007`,
  },
  // Malta: Council Regulation (EC) No 1134/2007 of 10 July 2007.
  {
    code: 'MTL',
    successor: 'EUR',
    rate: '0.429300',
    since: '2008-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EC) No 1134/2007`,
  },
  // Slovakia: Council Regulation (EC) No 694/2008 of 8 July 2008.
  {
    code: 'SKK',
    successor: 'EUR',
    rate: '30.1260',
    since: '2009-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EC) No 694/2008`,
  },
  // Estonia: Council Regulation (EU) No 671/2010 of 13 July 2010.
  {
    code: 'EEK',
    successor: 'EUR',
    rate: '15.6466',
    since: '2011-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EU) No 671/2010`,
  },
  // Latvia: Council Regulation (EU) No 870/2013 of 9 July 2013.
  {
    code: 'LVL',
    successor: 'EUR',
    rate: '0.702804',
    since: '2014-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EU) No 870/2013`,
  },
  // Lithuania: Council Regulation (EU) No 851/2014 of 23 July 2014.
  {
    code: 'LTL',
    successor: 'EUR',
    rate: '3.45280',
    since: '2015-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EU) No 851/2014`,
  },
  // Croatia: Council Regulation (EU) 2022/1208 of 12 July 2022.
  {
    code: 'HRK',
    successor: 'EUR',
    rate: '7.53450',
    since: '2023-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by Council Regulation (EU) 2022/1208`,
  },
  // Bulgaria: the amendment of 2866/98 the Council adopted on 8 July 2025 (the lev's ERM II central rate).
  {
    code: 'BGN',
    successor: 'EUR',
    rate: '1.95583',
    since: '2026-01-01',
    kind: 'euro',
    source: `${REG_2866_98}, as amended by the Council on 8 July 2025 (conversion rate for Bulgaria)`,
  },
  // Turkey: Law No. 5083 on the Currency of the Republic of Turkey (Official Gazette of 31 January 2004):
  // one new lira for 1,000,000 old liras from 1 January 2005.
  {
    code: 'TRL',
    successor: 'TRY',
    rate: '1000000',
    since: '2005-01-01',
    kind: 'redenomination',
    source: 'Law No. 5083 on the Currency of the Republic of Turkey (2004), Article 1',
  },
  // Romania: Law No. 348/2004 on the denomination of the national currency, Article 1(1):
  // 10,000 old lei are exchanged for 1 new leu on 1 July 2005.
  {
    code: 'ROL',
    successor: 'RON',
    rate: '10000',
    since: '2005-07-01',
    kind: 'redenomination',
    source: 'Law No. 348/2004 on the denomination of the national currency (Romania), Article 1(1)',
  },
]);

const BY_CODE: ReadonlyMap<string, Succession> = new Map(SUCCESSIONS.map((s) => [s.code, s]));

/** The legal replacement of `code` (upper case), or undefined when the law replaced nothing. */
export function successionOf(code: string): Succession | undefined {
  return BY_CODE.get(code);
}

/** The succession that applies on `day` (YYYY-MM-DD): the law's, once its successor is the currency. */
export function successionOn(code: string, day: string): Succession | undefined {
  const succession = BY_CODE.get(code);
  return succession !== undefined && day >= succession.since ? succession : undefined;
}

/** "1 EUR = 7.53450 HRK": the fixed rate as a sentence fragment. */
export function fixedRateText(s: Succession): string {
  return `1 ${s.successor} = ${s.rate} ${s.code}`;
}
