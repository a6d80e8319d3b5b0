import { SOURCE_IDS, type SourceId } from './types';

/** When a source publishes, as a rule a reader and the refresh schedule both use. */
export interface SourceSchedule {
  /** When each publication appears, in the publisher's words and time zone. */
  readonly description: string;
  /** The publisher's time zone (IANA). */
  readonly timeZone: string;
  /** Local time the day's publication is due by, HH:MM. */
  readonly dueBy: string;
  /** Days with a publication: every business day, or one weekday (NBP's table B, on Wednesdays). */
  readonly days: 'business-days' | 'wednesdays' | 'every-day';
  /** Days after which a quote is no longer carried forward to a later day (holidays, weekly tables). */
  readonly carryDays: number;
}

/** What the registry and `/v1/sources` say of a source. */
export interface SourceInfo {
  readonly id: SourceId;
  readonly publisher: string;
  /** The currency its figures are priced against (its tables' base; the IMF's representative rates). */
  readonly base: string;
  /** Its tables, each with its own schedule ("" where there is one). */
  readonly tables: readonly { readonly id: string; readonly base: string; readonly schedule: SourceSchedule }[];
  /** The publisher's terms of use. */
  readonly terms: string;
  /** The publisher's page for the rates. */
  readonly home: string;
}

const businessDays = (description: string, timeZone: string, dueBy: string): SourceSchedule => ({
  description,
  timeZone,
  dueBy,
  days: 'business-days',
  carryDays: 7,
});

/**
 * Every source, in the order a conversion without `source` tries them after the ECB (contract §13):
 * the ECB first (so every answer it serves stays as it is), then the central banks that fix daily
 * for the widest sets of traded currencies, then the weekly and the monthly-reported figures.
 */
export const SOURCES: readonly SourceInfo[] = Object.freeze([
  {
    id: 'ecb',
    publisher: 'European Central Bank',
    base: 'EUR',
    tables: [
      {
        id: '',
        base: 'EUR',
        schedule: businessDays(
          'Euro foreign exchange reference rates, each TARGET business day around 16:00 CET.',
          'Europe/Berlin',
          '16:00',
        ),
      },
    ],
    terms: 'https://www.ecb.europa.eu/services/using-our-site/disclaimer/html/index.en.html',
    home: 'https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html',
  },
  {
    id: 'boc',
    publisher: 'Bank of Canada',
    base: 'CAD',
    tables: [
      {
        id: '',
        base: 'CAD',
        schedule: businessDays(
          'Daily average exchange rates, published once each business day by 16:30 ET; indicative rates only.',
          'America/Toronto',
          '16:30',
        ),
      },
    ],
    terms: 'https://www.bankofcanada.ca/terms/',
    home: 'https://www.bankofcanada.ca/rates/exchange/daily-exchange-rates/',
  },
  {
    id: 'nb',
    publisher: 'Norges Bank',
    base: 'NOK',
    tables: [
      {
        id: '',
        base: 'NOK',
        schedule: businessDays('Exchange rates, each Norwegian business day around 16:00 CET.', 'Europe/Oslo', '16:00'),
      },
    ],
    terms: 'https://www.norges-bank.no/en/topics/Statistics/open-data/',
    home: 'https://www.norges-bank.no/en/topics/Statistics/exchange_rates/',
  },
  {
    id: 'cnb',
    publisher: 'Czech National Bank',
    base: 'CZK',
    tables: [
      {
        id: '',
        base: 'CZK',
        schedule: businessDays('Central bank exchange rate fixing, each Czech business day after 14:30 CET.', 'Europe/Prague', '14:30'),
      },
    ],
    terms: 'https://www.cnb.cz/en/terms-of-use/',
    home: 'https://www.cnb.cz/en/financial-markets/foreign-exchange-market/central-bank-exchange-rate-fixing/',
  },
  {
    id: 'nbp',
    publisher: 'National Bank of Poland',
    base: 'PLN',
    tables: [
      {
        id: 'A',
        base: 'PLN',
        schedule: businessDays('Table A of average rates, each Polish business day between 11:45 and 12:15 CET.', 'Europe/Warsaw', '12:15'),
      },
      {
        id: 'B',
        base: 'PLN',
        schedule: {
          description: 'Table B of average rates of other currencies, weekly on Wednesdays between 11:45 and 12:15 CET.',
          timeZone: 'Europe/Warsaw',
          dueBy: '12:15',
          days: 'wednesdays',
          carryDays: 14,
        },
      },
    ],
    terms: 'https://api.nbp.pl/en.html',
    home: 'https://nbp.pl/en/statistic-and-financial-reporting/rates/',
  },
  {
    id: 'boi',
    publisher: 'Bank of Israel',
    base: 'ILS',
    tables: [
      {
        id: '',
        base: 'ILS',
        schedule: businessDays('Representative exchange rates, each Israeli business day around 15:30 IST.', 'Asia/Jerusalem', '15:30'),
      },
    ],
    terms: 'https://www.boi.org.il/en/terms-of-use/',
    home: 'https://www.boi.org.il/en/economic-roles/financial-markets/exchange-rates/',
  },
  {
    id: 'nbu',
    publisher: 'National Bank of Ukraine',
    base: 'UAH',
    tables: [
      {
        id: '',
        base: 'UAH',
        schedule: businessDays(
          'Official hryvnia exchange rates, set each business day for the day they are valid.',
          'Europe/Kyiv',
          '15:30',
        ),
      },
    ],
    terms: 'https://bank.gov.ua/en/open-data/api-dev',
    home: 'https://bank.gov.ua/en/markets/exchangerates',
  },
  {
    id: 'cbr',
    publisher: 'Bank of Russia',
    base: 'RUB',
    tables: [
      {
        id: '',
        base: 'RUB',
        schedule: businessDays('Official exchange rates, set each Russian business day for the day after.', 'Europe/Moscow', '15:30'),
      },
    ],
    terms: 'https://www.cbr.ru/eng/about/',
    home: 'https://www.cbr.ru/eng/currency_base/daily/',
  },
  {
    id: 'imf',
    publisher: 'International Monetary Fund',
    base: 'USD',
    tables: [
      {
        id: 'representative',
        base: 'USD',
        schedule: businessDays(
          'Representative rates reported by member countries, per US dollar, each IMF business day.',
          'America/New_York',
          '18:00',
        ),
      },
      {
        id: 'sdr',
        base: 'XDR',
        schedule: businessDays('Currency units per SDR and SDRs per currency unit, each IMF business day.', 'America/New_York', '18:00'),
      },
    ],
    terms: 'https://www.imf.org/external/terms.htm',
    home: 'https://www.imf.org/external/np/fin/data/param_rms_mth.aspx',
  },
] satisfies SourceInfo[]);

const BY_ID: ReadonlyMap<SourceId, SourceInfo> = new Map(SOURCES.map((s) => [s.id, s]));

/** The source of that id; every id of SOURCE_IDS has one. */
export function sourceInfo(id: SourceId): SourceInfo {
  return BY_ID.get(id)!;
}

/** Whether `text` is a source id, as `source=` takes it (lower case, exactly). */
export function isSourceId(text: unknown): text is SourceId {
  return typeof text === 'string' && (SOURCE_IDS as readonly string[]).includes(text);
}
