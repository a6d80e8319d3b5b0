import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EcbFormatError, parseEcbCsv, parseEcbFile, parseEcbXml, type Publication } from '../../../src/domain/ecb';
import { renderCsv, renderXml } from './helpers';

const CODES = ['USD', 'JPY', 'GBP', 'ISK', 'TRL', 'ZAR'];
const day = fc.integer({ min: 0, max: 12_000 }).map((n) => new Date(Date.UTC(1999, 0, 4 + n)).toISOString().slice(0, 10));
const rate = fc
  .tuple(fc.stringMatching(/^\d{1,12}$/), fc.option(fc.stringMatching(/^\d{1,12}$/), { nil: undefined }))
  .map(([whole, fraction]) => (fraction === undefined ? whole : `${whole}.${fraction}`))
  .filter((value) => /[1-9]/.test(value));
const rates = fc.dictionary(fc.constantFrom(...CODES), rate, { minKeys: 1 });
const publications = fc
  .uniqueArray(fc.tuple(day, rates), { selector: ([date]) => date, maxLength: 30 })
  .map((days) => days.map(([date, r]): Publication => ({ date, rates: r })).sort((a, b) => (a.date < b.date ? -1 : 1)));

describe('any set of publications', () => {
  it('survives being written as the ECB XML, in either layout', () => {
    fc.assert(
      fc.property(publications, fc.constantFrom("'" as const, '"' as const), fc.boolean(), (pubs, quote, indented) => {
        expect(parseEcbXml(renderXml(pubs, { quote, indented }))).toEqual(pubs);
      }),
    );
  });

  it('survives being written as the wide CSV, with LF or CRLF', () => {
    fc.assert(
      fc.property(
        publications.filter((pubs) => pubs.length > 0),
        fc.constantFrom('\n', '\r\n'),
        (pubs, eol) => {
          expect(parseEcbCsv(renderCsv(pubs, eol))).toEqual(pubs);
        },
      ),
    );
  });

  it('parses the same from a file as from text', () => {
    fc.assert(
      fc.property(
        publications.filter((pubs) => pubs.length > 0),
        (pubs) => {
          const csv = renderCsv(pubs);
          const xml = renderXml(pubs, { quote: '"', indented: false });
          expect(parseEcbFile(new TextEncoder().encode(csv))).toEqual(parseEcbCsv(csv));
          expect(parseEcbFile(new TextEncoder().encode(xml))).toEqual(parseEcbXml(xml));
        },
      ),
      { numRuns: 30 },
    );
  });
});

/** Runs `parse` and fails the property on any error other than EcbFormatError. */
function onlyFormatErrors(parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(EcbFormatError);
  }
}

describe('garbage input', () => {
  it('makes parseEcbXml throw EcbFormatError and nothing else', () => {
    const unit = fc.constantFrom(...'<>/=\'" ?!-abcCube:time'.split(''));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 80 }), (text) => onlyFormatErrors(() => parseEcbXml(text))),
      { numRuns: 2000 },
    );
  });

  it('makes parseEcbCsv throw EcbFormatError and nothing else', () => {
    const unit = fc.constantFrom(...'Date,USD N/A\r\n0123456789.-'.split(''));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 80 }), (text) => onlyFormatErrors(() => parseEcbCsv(`Date,${text}`))),
      { numRuns: 2000 },
    );
  });

  it('makes parseEcbFile throw EcbFormatError and nothing else, zip magic included', () => {
    const zipLike = fc.uint8Array({ maxLength: 200 }).map((tail) => Uint8Array.of(0x50, 0x4b, 3, 4, ...tail));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 200 }), zipLike), (bytes) => onlyFormatErrors(() => parseEcbFile(bytes))),
      { numRuns: 2000 },
    );
  });
});
