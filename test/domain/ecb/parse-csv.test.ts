import { describe, expect, it } from 'vitest';
import { EcbFormatError, parseEcbCsv } from '../../../src/domain/ecb';
import { fixture } from './helpers';

const WIDE = fixture('hist-wide.csv');

describe('parseEcbCsv', () => {
  it('reads the wide history CSV oldest first, leaving N/A cells out', () => {
    expect(parseEcbCsv(WIDE)).toEqual([
      { date: '2026-04-09', rates: { USD: '1.225', JPY: '149.25', GBP: '0.859', HUF: '392.5' } },
      { date: '2026-04-10', rates: { USD: '1.23', JPY: '149.5', GBP: '0.86', HUF: '391', ISK: '141' } },
      { date: '2026-04-13', rates: { USD: '1.2345', JPY: '150', GBP: '0.8642', HUF: '390.1', ISK: '140.2' } },
    ]);
  });

  it('reads the one-day CSV with ", " separators and a "13 April 2026" date', () => {
    expect(parseEcbCsv(fixture('daily.csv'))).toEqual([
      { date: '2026-04-13', rates: { USD: '1.2345', JPY: '150.00', GBP: '0.86420', HUF: '390.10', ISK: '140.20' } },
    ]);
  });

  it.each([
    ['CRLF line ends', WIDE.replaceAll('\n', '\r\n')],
    ['no trailing newline', WIDE.trimEnd()],
    ['blank lines at the end', `${WIDE}\n\n`],
    ['a byte order mark', `\uFEFF${WIDE}`],
    ['no trailing comma', WIDE.replaceAll(',\n', '\n')],
    ['empty cells instead of N/A', WIDE.replaceAll('N/A', '')],
  ])('reads the same publications with %s', (_, text) => {
    expect(parseEcbCsv(text)).toEqual(parseEcbCsv(WIDE));
  });

  it.each([
    ['1 April 2026', '2026-04-01'],
    ['01 April 2026', '2026-04-01'],
    ['29 February 2024', '2024-02-29'],
    ['31 December 1999', '1999-12-31'],
  ])('reads the day written %s as %s', (written, iso) => {
    expect(parseEcbCsv(`Date, USD, \n${written}, 1.1, \n`)[0]?.date).toBe(iso);
  });
});

describe('parseEcbCsv refuses', () => {
  const wide = (row: string): string => `Date,USD,JPY,\n${row}\n`;

  it.each([
    ['an empty body', '', /not an ECB document: empty CSV/],
    ['a blank body', '\n \r\n', /not an ECB document: empty CSV/],
    [
      'an HTML error page',
      fixture('error-page.html'),
      /not an ECB CSV: the header must start with "Date", found "<!DOCTYPE html>" at line 1/,
    ],
    ['a header without currencies', 'Date,\n2026-04-13,\n', /the header names no currency at line 1/],
    ['a lower-case currency column', 'Date,usd,\n', /invalid currency code "usd" .* at line 1/],
    ['an EUR column', 'Date,EUR,\n', /EUR is the base currency/],
    ['a repeated currency column', 'Date,USD,USD,\n', /duplicate currency column USD at line 1/],
    ['a truncated row', `${WIDE}2026-04-08,1.2`, /2 fields where the header has 8 \(truncated or malformed row\) at line 5/],
    ['a rate with a decimal comma', wide('2026-04-13,1,5,150,'), /5 fields where the header has 4 .* at line 2/],
    ['a negative rate', wide('2026-04-13,-1,150,'), /invalid rate "-1" for USD on 2026-04-13 .* at line 2/],
    ['a zero rate', wide('2026-04-13,0,150,'), /invalid rate "0" for USD/],
    ['a quoted rate', wide('2026-04-13,"1.5",150,'), /invalid rate "\\"1.5\\"" for USD/],
    ['a day that does not exist', wide('2026-02-31,1.1,150,'), /invalid date "2026-02-31" .* at line 2/],
    ['a written day that does not exist', wide('31 February 2026,1.1,150,'), /invalid date "31 February 2026"/],
    ['an abbreviated month', wide('13 Apr 2026,1.1,150,'), /invalid date "13 Apr 2026"/],
    ['a spreadsheet date', wide('4/13/2026,1.1,150,'), /invalid date "4\/13\/2026"/],
    ['a duplicate date', `${wide('2026-04-13,1.1,150,')}2026-04-13,1.2,151,\n`, /duplicate date 2026-04-13 at line 3 \(first at line 2\)/],
    ['a day with every cell N/A', wide('2026-04-13,N/A,N/A,'), /no rates for 2026-04-13 at line 2/],
    ['a blank line between rows', `${wide('2026-04-13,1.1,150,')}\n2026-04-10,1.2,151,\n`, /a blank line between rows at line 3/],
    ['a value after the trailing comma', wide('2026-04-13,1.1,150,9'), /a value after the last currency column at line 2/],
  ])('%s', (_, text, message) => {
    expect(() => parseEcbCsv(text)).toThrow(EcbFormatError);
    expect(() => parseEcbCsv(text)).toThrow(message);
  });
});
