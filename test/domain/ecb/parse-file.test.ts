import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { EcbFormatError, MAX_INFLATED_BYTES, parseEcbCsv, parseEcbFile, parseEcbXml } from '../../../src/domain/ecb';
import { fixture, fixtureBytes } from './helpers';

const CSV = fixtureBytes('hist-wide.csv');
const XML = fixtureBytes('hist-90d-one-line.xml');
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A zip whose directory says `size` for the first member's inflated size, as a hand-made bomb would. */
function withDeclaredSize(zip: Uint8Array, size: number): Uint8Array {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  for (let i = 0; i + 4 <= copy.length; i++) {
    if (view.getUint32(i, true) === 0x04034b50) view.setUint32(i + 22, size, true); // local header
    if (view.getUint32(i, true) === 0x02014b50) view.setUint32(i + 24, size, true); // central directory
  }
  return copy;
}

describe('parseEcbFile', () => {
  it('parses a CSV file as CSV', () => {
    expect(parseEcbFile(CSV)).toEqual(parseEcbCsv(fixture('hist-wide.csv')));
  });

  it('parses a file whose first non-space character is < as XML', () => {
    expect(parseEcbFile(utf8(`\n  ${fixture('hist-90d-one-line.xml')}`))).toEqual(parseEcbXml(fixture('hist-90d-one-line.xml')));
  });

  it('parses a zip holding one CSV like the CSV itself', () => {
    expect(parseEcbFile(zipSync({ 'eurofxref-hist.csv': CSV }))).toEqual(parseEcbFile(CSV));
  });

  it('parses a zip holding one XML, stored or deflated', () => {
    expect(parseEcbFile(zipSync({ 'rates.xml': XML }, { level: 0 }))).toEqual(parseEcbFile(XML));
    expect(parseEcbFile(zipSync({ 'rates.XML': XML }, { level: 9 }))).toEqual(parseEcbFile(XML));
  });

  it('prefixes errors with the file name when given', () => {
    expect(() => parseEcbFile(fixtureBytes('bad-date.xml'), 'eurofxref-daily.xml')).toThrow(
      /^eurofxref-daily.xml: invalid date "2026-02-31"/,
    );
  });

  it('leaves the member size limit at 64 MiB', () => {
    expect(MAX_INFLATED_BYTES).toBe(64 * 1024 * 1024);
  });
});

describe('parseEcbFile refuses', () => {
  const csvZip = zipSync({ 'eurofxref-hist.csv': CSV });

  it.each([
    ['an empty file', new Uint8Array(0), /not an ECB document: the file is empty/],
    ['a blank file', utf8(' \r\n'), /not an ECB document: the file is empty/],
    ['bytes that are not UTF-8', Uint8Array.of(0x44, 0x61, 0x74, 0x65, 0xff, 0x2c), /not valid UTF-8/],
    ['an HTML error page', fixtureBytes('error-page.html'), /not an ECB XML document/],
    ['an empty zip', zipSync({}), /zip holds no file; expected exactly one .csv or .xml/],
    ['a zip with two members', zipSync({ 'a.csv': CSV, 'b.xml': XML }), /zip holds more than one file \("a.csv", "b.xml", …\)/],
    ['a zip whose member is not CSV or XML', zipSync({ 'rates.txt': CSV }), /zip member "rates.txt" is not a .csv or .xml file/],
    ['a truncated zip', csvZip.subarray(0, csvZip.length - 30), /corrupt zip/],
    [
      'a zip declaring a member over the limit',
      withDeclaredSize(csvZip, MAX_INFLATED_BYTES + 1),
      /declares 67108865 bytes, over the 67108864-byte limit/,
    ],
    [
      'a zip declaring more bytes than it holds',
      withDeclaredSize(csvZip, CSV.length + 10),
      /corrupt zip member eurofxref-hist.csv: inflated \d+ bytes, the directory says \d+/,
    ],
    ['a zip holding a bad CSV', zipSync({ 'x.csv': utf8('Date,USD,\n2026-02-31,1,\n') }), /invalid date "2026-02-31"/],
  ])('%s', (_, bytes, message) => {
    expect(() => parseEcbFile(bytes)).toThrow(EcbFormatError);
    expect(() => parseEcbFile(bytes)).toThrow(message);
  });

  it('refuses a real zip bomb before inflating it', () => {
    const bomb = zipSync({ 'bomb.csv': new Uint8Array(MAX_INFLATED_BYTES + 1) }, { level: 1 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(() => parseEcbFile(bomb)).toThrow(/over the 67108864-byte limit/);
  });
});
