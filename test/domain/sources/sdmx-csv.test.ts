/** Made-up SDMX-CSV responses in Norges Bank's and the Bank of Israel's columns; invented figures. */
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../src/domain/sources/sdmx-csv';
import { parseFeed } from '../../../src/domain/sources/parsers';
import { expectFormatError, utf8 } from './helpers';

const NB_HEADER = 'FREQ,BASE_CUR,QUOTE_CUR,TENOR,DECIMALS,CALCULATED,UNIT_MULT,COLLECTION,TIME_PERIOD,OBS_VALUE';
const nb = (...rows: string[]) => utf8([NB_HEADER, ...rows].join('\n'));
const BOI_HEADER =
  'SERIES_CODE,FREQ,BASE_CURRENCY,COUNTER_CURRENCY,UNIT_MEASURE,DATA_TYPE,DATA_SOURCE,TIME_COLLECT,CONF_STATUS,PUB_WEBSITE,UNIT_MULT,COMMENTS,TIME_PERIOD,OBS_VALUE,RELEASE_STATUS';

describe('readCsv', () => {
  it('reads quoted fields with commas, doubled quotes and line breaks, and counts lines from where a record starts', () => {
    expect(readCsv('nb', 'a,"b,c","say ""hi"""\r\n"x\ny",2\n\n3')).toEqual([
      { line: 1, fields: ['a', 'b,c', 'say "hi"'] },
      { line: 2, fields: ['x\ny', '2'] },
      { line: 5, fields: ['3'] },
    ]);
  });

  it.each([
    ['a,"b\n', 1, /not closed/],
    ['a\n"b"c', 2, /after a closing quote/],
  ])('fails on %j at line %i', (text, line, reason) => {
    expectFormatError(() => readCsv('nb', text), line, reason);
  });
});

describe('Norges Bank: BASE_CUR priced in NOK, 10^UNIT_MULT units', () => {
  it.each([
    ['0', '1'],
    ['2', '100'],
  ])('UNIT_MULT %s gives units %s', (mult, units) => {
    const feed = parseFeed('nb', nb(`B,AAA,NOK,SP,4,false,${mult},C,2030-01-02,3.1410`));
    expect(feed.publications[0]!.figures.AAA).toEqual({ value: '3.1410', units, direction: 'base-per-units' });
  });

  it('reads an empty OBS_VALUE as no figure that day, not an error', () => {
    const feed = parseFeed('nb', nb('B,AAA,NOK,SP,4,false,0,C,2030-01-02,', 'B,AAA,NOK,SP,4,false,0,C,2030-01-03,1.5'));
    expect(feed.publications.map((p) => p.date)).toEqual(['2030-01-03']);
    expect(feed.skipped).toEqual([]);
  });

  it('reads a quoted value and a decimal comma', () => {
    expect(parseFeed('nb', nb('B,AAA,NOK,SP,4,false,0,C,2030-01-02,"1,25"')).publications[0]!.figures.AAA!.value).toBe('1.25');
  });

  it('skips the krone indices, other quote currencies, short rows and bad values, each with its line', () => {
    const feed = parseFeed(
      'nb',
      nb(
        'B,TWI,NOK,SP,2,true,0,C,2030-01-02,120.5',
        'B,I44,NOK,SP,2,true,0,C,2030-01-02,120.5',
        'B,AAA,SEK,SP,4,false,0,C,2030-01-02,1.5',
        'B,AAA,NOK',
        'B,AAA,NOK,SP,4,false,0,C,2030-01-02,1.5.1',
        'B,AAA,NOK,SP,4,false,-1,C,2030-01-02,1.5',
      ),
    );
    expect(feed.skipped).toEqual([
      { line: 2, reason: expect.stringMatching(/index, not a currency/) },
      { line: 3, reason: expect.stringMatching(/index, not a currency/) },
      { line: 4, reason: expect.stringMatching(/priced in "SEK", not NOK/) },
      { line: 5, reason: expect.stringMatching(/3 fields where the header has 10/) },
      { line: 6, reason: expect.stringMatching(/not a plain decimal/) },
      { line: 7, reason: expect.stringMatching(/unit multiplier "-1"/) },
    ]);
  });

  it.each([
    ['FREQ,BASE_CUR,TIME_PERIOD,OBS_VALUE\nB,AAA,2030-01-02,1', /no QUOTE_CUR column/],
    ['<!DOCTYPE html><html></html>', /no BASE_CUR column/],
    ['\n \n', /empty/],
  ])('fails the import on a response that is not the publisher CSV (%j)', (text, reason) => {
    expectFormatError(() => parseFeed('nb', utf8(text)), 1, reason);
  });
});

describe('Bank of Israel: BASE_CURRENCY priced in ILS (COUNTER_CURRENCY), 10^UNIT_MULT units', () => {
  it('reads its own column names and UNIT_MULT 1 as ten units', () => {
    const body = utf8(`${BOI_HEADER}\r\nRER_AAA_ILS,D,AAA,ILS,ILS,OF00,BOI_MRKT,V,F,Y,1,,2030-01-02,0.0004,YP\r\n`);
    expect(parseFeed('boi', body).publications).toEqual([
      {
        source: 'boi',
        table: '',
        date: '2030-01-02',
        base: 'ILS',
        figures: { AAA: { value: '0.0004', units: '10', direction: 'base-per-units' } },
      },
    ]);
  });

  it("fails on Norges Bank's columns", () => {
    expectFormatError(() => parseFeed('boi', nb('B,AAA,NOK,SP,4,false,0,C,2030-01-02,1')), 1, /no BASE_CURRENCY column/);
  });
});
