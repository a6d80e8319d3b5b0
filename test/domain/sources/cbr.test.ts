/** Made-up Bank of Russia responses in windows-1251; the figures are invented. */
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../src/domain/sources/parsers';
import { expectFormatError } from './helpers';

/** ASCII text with `{name}` standing for a Cyrillic name, encoded to windows-1251 bytes from hex ("Евро" = c5 e2 f0 ee). */
const cp1251 = (xml: string): Uint8Array =>
  Buffer.concat(
    xml.split('{name}').flatMap((part, i) => (i === 0 ? [] : [Buffer.from('c5e2f0ee', 'hex')]).concat(Buffer.from(part, 'latin1'))),
  );
const DECL = '<?xml version="1.0" encoding="windows-1251"?>';
const valute = (id: string, code: string, nominal: string, value: string) =>
  `<Valute ID="${id}"><NumCode>001</NumCode><CharCode>${code}</CharCode><Nominal>${nominal}</Nominal><Name>{name}</Name><Value>${value}</Value><VunitRate>1</VunitRate></Valute>`;
const daily = (...valutes: string[]) =>
  cp1251(`${DECL}<ValCurs Date="02.01.2030" name="Foreign Currency Market">${valutes.join('')}</ValCurs>`);

describe('Bank of Russia XML_daily: `Nominal` units cost `Value` roubles, decimal comma', () => {
  it('reads a decimal comma and Nominal 10, decoding the windows-1251 bytes', () => {
    const feed = parseFeed('cbr', daily(valute('R1', 'AAA', '10', '87,6543')));
    expect(feed.publications).toEqual([
      {
        source: 'cbr',
        table: '',
        date: '2030-01-02',
        base: 'RUB',
        figures: { AAA: { value: '87.6543', units: '10', direction: 'base-per-units' } },
      },
    ]);
  });

  it.each([
    ['100', '45,0010', { value: '45.0010', units: '100', direction: 'base-per-units' }],
    ['1', '61.2345', { value: '61.2345', units: '1', direction: 'base-per-units' }],
  ])('Nominal %s, Value %s', (nominal, value, figure) => {
    expect(parseFeed('cbr', daily(valute('R1', 'AAA', nominal, value))).publications[0]!.figures.AAA).toEqual(figure);
  });

  it('skips a Valute with a bad value, a bad Nominal or no CharCode, on its line', () => {
    const body = cp1251(
      `${DECL}\n<ValCurs Date="02.01.2030">\n${valute('R1', 'AAA', '1', '1,2,3')}\n${valute('R2', 'BBB', '0', '1,5')}\n<Valute ID="R3"><Nominal>1</Nominal><Value>1,5</Value></Valute>\n</ValCurs>`,
    );
    expect(parseFeed('cbr', body).skipped).toEqual([
      { line: 3, reason: expect.stringMatching(/not a plain decimal/) },
      { line: 4, reason: expect.stringMatching(/unit count "0"/) },
      { line: 5, reason: expect.stringMatching(/0 <CharCode> elements/) },
    ]);
  });

  it.each([
    ['Error in parameters', 1, /text outside the root/],
    [`${DECL}<html><body>x</body></html>`, 1, /not <ValCurs>/],
    [`${DECL}<ValCurs Date="2030-01-02"></ValCurs>`, 1, /not written DD.MM.YYYY/],
    [`${DECL}\n<ValCurs Date="02.01.2030">\n<Valute>`, 3, /not closed/],
    ['', 1, /empty/],
  ])('fails the import on %j', (text, line, reason) => {
    expectFormatError(() => parseFeed('cbr', cp1251(text)), line, reason);
  });
});

describe("Bank of Russia XML_dynamic: one currency over days, named by the bank's id", () => {
  const record = (day: string, value: string) =>
    `<Record Date="${day}" Id="R01235"><Nominal>1</Nominal><Value>${value}</Value><VunitRate>1</VunitRate></Record>`;
  it('maps the id to its ISO code and reads each Record day', () => {
    const body = cp1251(
      `${DECL}<ValCurs ID="R01235" DateRange1="01.01.2030" DateRange2="05.01.2030" name="Foreign Currency Market Dynamic">${record('03.01.2030', '75,1')}${record('02.01.2030', '75,0')}</ValCurs>`,
    );
    expect(parseFeed('cbr', body).publications.map((p) => [p.date, p.figures])).toEqual([
      ['2030-01-02', { USD: { value: '75.0', units: '1', direction: 'base-per-units' } }],
      ['2030-01-03', { USD: { value: '75.1', units: '1', direction: 'base-per-units' } }],
    ]);
  });

  it('fails the import on an id it does not know', () => {
    expectFormatError(() => parseFeed('cbr', cp1251(`${DECL}<ValCurs ID="R09999"></ValCurs>`)), 1, /currency id "R09999"/);
  });
});
