/** Made-up responses in the publishers' shapes; the figures are invented, not the publishers'. */
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../src/domain/sources/parsers';
import { expectFormatError, utf8 } from './helpers';

const cnb = (rows: string) => utf8(`{"rates":[${rows}]}`);
const cnbRow = (code: string, amount: string, rate: string, day = '2030-01-02') =>
  `{"currencyCode":"${code}","amount":${amount},"validFor":"${day}","rate":${rate}}`;

describe('CNB: `amount` units cost `rate` korunas, the rate read as its JSON text', () => {
  it.each([
    ['13.579', '13.579'],
    ['0.1000', '0.1000'],
    ['21.470', '21.470'],
    ['12345678901234567890.123', '12345678901234567890.123'],
  ])('keeps %s exactly', (text, value) => {
    const feed = parseFeed('cnb', cnb(cnbRow('AAA', '1', text)));
    expect(feed.publications[0]!.figures.AAA).toEqual({ value, units: '1', direction: 'base-per-units' });
  });

  it('gives a 100-unit currency units "100"', () => {
    const feed = parseFeed('cnb', cnb(cnbRow('JPY', '100', '9.123')));
    expect(feed.publications).toEqual([
      {
        source: 'cnb',
        table: '',
        date: '2030-01-02',
        base: 'CZK',
        figures: { JPY: { value: '9.123', units: '100', direction: 'base-per-units' } },
      },
    ]);
  });

  it.each([
    ['1e-7', /not a plain decimal/],
    ['-1.5', /not a plain decimal/],
    ['0.000', /not above zero/],
    ['"1.5"', /"rate" is missing or not a number/],
  ])('skips a rate written %s with its line and reason', (rate, reason) => {
    const feed = parseFeed('cnb', utf8(`{"rates":[\n${cnbRow('AAA', '1', '1.5')},\n${cnbRow('BBB', '1', rate)}]}`));
    expect(feed.skipped).toEqual([{ line: 3, reason: expect.stringMatching(reason) }]);
    expect(Object.keys(feed.publications[0]!.figures)).toEqual(['AAA']);
  });

  it.each([
    ['Eur', /three upper-case letters/],
    ['EURO', /three upper-case letters/],
  ])('skips a row naming the currency %s', (code, reason) => {
    expect(parseFeed('cnb', cnb(cnbRow(code, '1', '2.5'))).skipped).toEqual([{ line: 1, reason: expect.stringMatching(reason) }]);
  });

  it('skips an amount that is not a positive whole number, and a day that does not exist', () => {
    const feed = parseFeed('cnb', cnb(`${cnbRow('AAA', '0', '1.5')},${cnbRow('BBB', '1', '1.5', '2030-02-31')}`));
    expect(feed.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/unit count "0"/),
      expect.stringMatching(/not a calendar day/),
    ]);
  });

  it('fails the import on the same currency twice on a day with different figures, not with the same', () => {
    expect(parseFeed('cnb', cnb(`${cnbRow('AAA', '1', '1.5')},${cnbRow('AAA', '1', '1.5')}`)).publications).toHaveLength(1);
    expectFormatError(() => parseFeed('cnb', cnb(`${cnbRow('AAA', '1', '1.5')},${cnbRow('AAA', '1', '1.6')}`)), 1, /AAA is quoted twice/);
  });

  it('never makes the base a figure, and sorts the days', () => {
    const feed = parseFeed(
      'cnb',
      cnb(`${cnbRow('AAA', '1', '1.5', '2030-01-03')},${cnbRow('CZK', '1', '1', '2030-01-02')},${cnbRow('AAA', '1', '1.4', '2030-01-02')}`),
    );
    expect(feed.publications.map((p) => [p.date, Object.keys(p.figures)])).toEqual([
      ['2030-01-02', ['AAA']],
      ['2030-01-03', ['AAA']],
    ]);
  });

  it.each([
    ['<html>error</html>', 1, /not JSON/],
    ['{"rates":\n{}}', 2, /"rates" is not an array/],
    ['[]', 1, /not a JSON object/],
    ['', 1, /empty/],
  ])('fails the import on %j', (text, line, reason) => {
    expectFormatError(() => parseFeed('cnb', utf8(text)), line, reason);
  });

  it('fails the import on bytes that are not UTF-8', () => {
    expectFormatError(() => parseFeed('cnb', Uint8Array.from([0x7b, 0xff, 0x7d])), 1, /not UTF-8/);
  });
});

describe('Bank of Canada: FX<CCY>CAD series, CAD per one unit, value strings', () => {
  const boc = (observations: string) => utf8(`{"seriesDetail":{},"observations":[${observations}]}`);
  it('reads each series of each day; a series absent on a day has no figure', () => {
    const feed = parseFeed(
      'boc',
      boc('{"d":"2030-01-02","FXAAACAD":{"v":"1.2300"},"FXBBBCAD":{"v":"0.000062"}},{"d":"2030-01-03","FXAAACAD":{"v":"1.2400"}}'),
    );
    expect(feed.publications.map((p) => [p.date, p.base, p.figures])).toEqual([
      [
        '2030-01-02',
        'CAD',
        {
          AAA: { value: '1.2300', units: '1', direction: 'base-per-units' },
          BBB: { value: '0.000062', units: '1', direction: 'base-per-units' },
        },
      ],
      ['2030-01-03', 'CAD', { AAA: { value: '1.2400', units: '1', direction: 'base-per-units' } }],
    ]);
    expect(feed.skipped).toEqual([]);
  });

  it('skips a series not named FX<CCY>CAD and a value that is not a string, each on its line', () => {
    const feed = parseFeed('boc', utf8('{"observations":[\n{"d":"2030-01-02",\n"FXAAAUSD":{"v":"1.1"},\n"FXBBBCAD":{"v":1.1}}]}'));
    expect(feed.skipped).toEqual([
      { line: 3, reason: expect.stringMatching(/not named FX<currency>CAD/) },
      { line: 4, reason: expect.stringMatching(/"v" is missing or not a string/) },
    ]);
  });

  it('fails the import without observations', () => {
    expectFormatError(() => parseFeed('boc', utf8('{"terms":{}}')), 1, /"observations" is not an array/);
  });
});

describe('NBP: tables A and B, `mid` złoty per one unit, the table and its effectiveDate', () => {
  const table = (id: string, day: string, rates: string) =>
    `{"table":"${id}","no":"1/${id}/NBP/2030","effectiveDate":"${day}","rates":[${rates}]}`;
  it('makes one publication per table and day', () => {
    const body = utf8(
      `[${table('B', '2030-01-02', '{"currency":"x","code":"AAA","mid":0.043200}')},${table('A', '2030-01-02', '{"currency":"y","code":"BBB","mid":3.6000}')}]`,
    );
    expect(parseFeed('nbp', body).publications.map((p) => [p.table, p.date, p.figures])).toEqual([
      ['A', '2030-01-02', { BBB: { value: '3.6000', units: '1', direction: 'base-per-units' } }],
      ['B', '2030-01-02', { AAA: { value: '0.043200', units: '1', direction: 'base-per-units' } }],
    ]);
  });

  it('fails the import on table C (bid and ask, no mid) and on an empty answer', () => {
    expectFormatError(() => parseFeed('nbp', utf8(`[${table('C', '2030-01-02', '')}]`)), 1, /not an NBP table of mid rates/);
    expectFormatError(() => parseFeed('nbp', utf8('[]')), 1, /no table/);
    expectFormatError(() => parseFeed('nbp', utf8(`[${table('A', '2030-02-30', '')}]`)), 1, /no effectiveDate that is a calendar day/);
  });
});

describe('NBU: `units` units cost `rate` hryvnias, days written DD.MM.YYYY', () => {
  const row = (day: string, code: string, rate: string, units: string) =>
    `{"exchangedate":"${day}","r030":1,"cc":"${code}","txt":"x","enname":"x","rate":${rate},"units":${units},"rate_per_unit":0.5,"group":"1","calcdate":"01.01.2030","special":null}`;
  it('reads the day, the units and the rate text', () => {
    const feed = parseFeed('nbu', utf8(`[\n${row('02.01.2030', 'AAA', '12.3450', '10')}\n]`));
    expect(feed.publications).toEqual([
      {
        source: 'nbu',
        table: '',
        date: '2030-01-02',
        base: 'UAH',
        figures: { AAA: { value: '12.3450', units: '10', direction: 'base-per-units' } },
      },
    ]);
  });

  it('skips a row whose day is not DD.MM.YYYY or does not exist, on its line', () => {
    const feed = parseFeed('nbu', utf8(`[\n${row('2030-01-02', 'AAA', '1.5', '1')},\n${row('31.02.2030', 'AAA', '1.5', '1')}]`));
    expect(feed.skipped).toEqual([
      { line: 2, reason: expect.stringMatching(/not written DD.MM.YYYY/) },
      { line: 3, reason: expect.stringMatching(/not a calendar day/) },
    ]);
  });
});
