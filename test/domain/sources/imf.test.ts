/** Made-up IMF rms_mth TSV reports in the IMF's layout; the figures are invented. */
import { describe, expect, it } from 'vitest';
import { parseFeed } from '../../../src/domain/sources/parsers';
import { expectFormatError, utf8 } from './helpers';

const tsv = (...lines: string[]) => utf8(lines.join('\r\n'));
const REP = 'Representative Exchange Rates for Selected Currencies for January 2030';
const HEADER = 'Currency\tJanuary 02, 2030\tJanuary 03, 2030';

describe('IMF representative rates: units per US dollar, rows marked (1) US dollars per unit', () => {
  it('reads plain rows as units-per-base, (1) rows as base-per-units, NA as no figure, and drops the dollar', () => {
    const feed = parseFeed(
      'imf',
      tsv(REP, HEADER, 'Euro(1)\t1.250000\t1.240000', 'Japanese yen\t123.450000\tNA', 'U.S. dollar\t1.000000\t1.000000', '', 'Notes:', 'x'),
    );
    expect(feed.skipped).toEqual([]);
    expect(feed.publications).toEqual([
      {
        source: 'imf',
        table: 'representative',
        date: '2030-01-02',
        base: 'USD',
        figures: {
          EUR: { value: '1.250000', units: '1', direction: 'base-per-units' },
          JPY: { value: '123.450000', units: '1', direction: 'units-per-base' },
        },
      },
      {
        source: 'imf',
        table: 'representative',
        date: '2030-01-03',
        base: 'USD',
        figures: { EUR: { value: '1.240000', units: '1', direction: 'base-per-units' } },
      },
    ]);
  });

  it('drops the thousands comma of "1,234.500000"; a comma that groups no thousands is skipped', () => {
    const feed = parseFeed('imf', tsv(REP, HEADER, 'Korean won\t1,234.500000\t1,43'));
    expect(feed.publications[0]!.figures.KRW!.value).toBe('1234.500000');
    expect(feed.skipped).toEqual([{ line: 3, reason: expect.stringMatching(/groups no thousands/) }]);
  });

  it('reads the "Continued" half under its own header of days', () => {
    const feed = parseFeed(
      'imf',
      tsv(REP, HEADER, 'Euro(1)\t1.1\t1.2', '', `${REP} Continued`, '', 'Currency\tJanuary 06, 2030', 'Euro(1)\t1.3'),
    );
    expect(feed.publications.map((p) => [p.date, p.figures.EUR!.value])).toEqual([
      ['2030-01-02', '1.1'],
      ['2030-01-03', '1.2'],
      ['2030-01-06', '1.3'],
    ]);
  });

  it('skips a name it cannot map and a row of the wrong width, never guessing', () => {
    const feed = parseFeed('imf', tsv(REP, HEADER, 'Atlantean crown\t1.5\t1.5', 'Euro(2)\t1.5\t1.5', 'Japanese yen\t1.5'));
    expect(feed.skipped).toEqual([
      { line: 3, reason: expect.stringMatching(/"Atlantean crown" is not one this loader knows/) },
      { line: 4, reason: expect.stringMatching(/"Euro\(2\)"/) },
      { line: 5, reason: expect.stringMatching(/1 figures where the header has 2 days/) },
    ]);
  });

  it.each([
    [['<html>'], 1, /not an IMF rms_mth report/],
    [[REP, 'Euro(1)\t1.1'], 2, /before any "Currency" header/],
    [[REP, 'Currency\tJanuary 32, 2030'], 2, /not a calendar day/],
    [[REP, 'Currency\t2030-01-02'], 2, /not a day written/],
  ])('fails the import on %j', (lines, line, reason) => {
    expectFormatError(() => parseFeed('imf', tsv(...lines)), line, reason);
  });
});

describe('IMF SDR values: table "sdr", base XDR', () => {
  it('reads "SDRs per Currency unit" as base-per-units, the US dollar included', () => {
    const feed = parseFeed(
      'imf',
      tsv('SDRs per Currency unit for January 2030', HEADER, 'U.S. dollar\t0.6500000000\tNA', 'Euro\t0.7700000000\t0.7600000000'),
    );
    expect(feed.publications[0]).toEqual({
      source: 'imf',
      table: 'sdr',
      date: '2030-01-02',
      base: 'XDR',
      figures: {
        EUR: { value: '0.7700000000', units: '1', direction: 'base-per-units' },
        USD: { value: '0.6500000000', units: '1', direction: 'base-per-units' },
      },
    });
  });

  it('reads "Currency units per SDR" as units-per-base', () => {
    const feed = parseFeed('imf', tsv('Currency units per SDR for January 2030', HEADER, 'Euro\t1.298700\t1.315800'));
    expect(feed.publications[0]!.figures.EUR).toEqual({ value: '1.298700', units: '1', direction: 'units-per-base' });
  });

  it('keeps the SDRs-per-unit figure where a report holds both SDR sections, the other only filling gaps', () => {
    const feed = parseFeed(
      'imf',
      tsv(
        'Currency units per SDR for January 2030',
        HEADER,
        'Euro\t1.298700\t1.315800',
        'Japanese yen\t214.000\t215.000',
        '',
        'SDRs per Currency unit for January 2030',
        HEADER,
        'Euro\t0.7700000000\tNA',
      ),
    );
    expect(feed.publications.map((p) => [p.table, p.date, p.figures])).toEqual([
      [
        'sdr',
        '2030-01-02',
        {
          EUR: { value: '0.7700000000', units: '1', direction: 'base-per-units' },
          JPY: { value: '214.000', units: '1', direction: 'units-per-base' },
        },
      ],
      [
        'sdr',
        '2030-01-03',
        {
          EUR: { value: '1.315800', units: '1', direction: 'units-per-base' },
          JPY: { value: '215.000', units: '1', direction: 'units-per-base' },
        },
      ],
    ]);
  });
});
