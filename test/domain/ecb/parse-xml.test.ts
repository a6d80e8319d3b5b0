import { describe, expect, it } from 'vitest';
import { EcbFormatError, parseEcbXml } from '../../../src/domain/ecb';
import { fixture } from './helpers';

const DAILY = fixture('daily-single-quotes.xml');
const DAILY_RATES = { USD: '1.2345', JPY: '150.00', GBP: '0.86420', HUF: '390.10', ISK: '140.20' };

/** The daily fixture with its rate lines replaced, for one-rule error cases. */
function dailyWith(rateCubes: string, time = '2026-04-13'): string {
  const start = DAILY.indexOf('\t\t<Cube time=');
  const end = DAILY.indexOf('\t</Cube>\n</gesmes');
  return `${DAILY.slice(0, start)}\t\t<Cube time='${time}'>${rateCubes}</Cube>\n${DAILY.slice(end)}`;
}

describe('parseEcbXml', () => {
  it('reads the daily feed with single quotes, tabs and no trailing newline', () => {
    expect(DAILY.endsWith('</gesmes:Envelope>')).toBe(true);
    expect(parseEcbXml(DAILY)).toEqual([{ date: '2026-04-13', rates: DAILY_RATES }]);
  });

  it('reads the 90-day feed written on one line with double quotes, oldest first', () => {
    const pubs = parseEcbXml(fixture('hist-90d-one-line.xml'));
    expect(pubs.map((p) => p.date)).toEqual(['2026-04-09', '2026-04-10', '2026-04-13']);
    expect(pubs.map((p) => Object.keys(p.rates).length)).toEqual([4, 5, 5]);
    expect(pubs[2]).toEqual({ date: '2026-04-13', rates: DAILY_RATES });
  });

  it('keeps rate strings exactly as published, trailing zeros included', () => {
    const [pub] = parseEcbXml(DAILY);
    expect(pub?.rates.JPY).toBe('150.00');
    expect(pub?.rates.GBP).toBe('0.86420');
  });

  it.each([
    ['without the XML declaration', DAILY.slice(DAILY.indexOf('<gesmes'))],
    ['with CRLF line ends', DAILY.replaceAll('\n', '\r\n')],
    ['with a trailing newline', `${DAILY}\n`],
    ['with a byte order mark', `\uFEFF${DAILY}`],
    ['with a comment', DAILY.replace('<Cube>', '<!-- rates follow --><Cube>')],
    ['with spaces around = in attributes', DAILY.replace("currency='USD'", "currency = 'USD'")],
    ['with a rate Cube written open and closed', DAILY.replace("rate='1.2345'/>", "rate='1.2345'></Cube>")],
  ])('accepts the feed %s', (_, text) => {
    expect(parseEcbXml(text)).toEqual([{ date: '2026-04-13', rates: DAILY_RATES }]);
  });

  it('returns no publications when the data Cube is empty', () => {
    const text = DAILY.slice(0, DAILY.indexOf('\t<Cube>')) + '\t<Cube/>\n</gesmes:Envelope>';
    expect(parseEcbXml(text)).toEqual([]);
  });

  it('returns frozen publications', () => {
    const [pub] = parseEcbXml(DAILY);
    expect(Object.isFrozen(pub)).toBe(true);
    expect(Object.isFrozen(pub?.rates)).toBe(true);
  });
});

describe('parseEcbXml refuses', () => {
  const rate = (code: string, value: string): string => `<Cube currency='${code}' rate='${value}'/>`;

  it.each([
    ['an HTML error page', fixture('error-page.html'), /not an ECB XML document: unexpected markup "<!DOCTYPE ht/],
    ['an HTML page without doctype', '<html><body>Bad gateway</body></html>', /not an ECB document: root element is <html>/],
    ['an empty body', fixture('empty.xml'), /not an ECB document: no XML element/],
    ['a blank body', ' \n\t', /not an ECB document: no XML element/],
    ['plain text', 'Service Unavailable', /not an ECB document: text outside the root element at line 1, column 1/],
    [
      'a truncated file',
      fixture('truncated.xml'),
      /truncated XML: <Cube> opened at line 8, column 3 is never closed \(the text ends at line \d+/,
    ],
    [
      'a file cut inside a tag',
      DAILY.slice(0, DAILY.indexOf("rate='0.86420'") + 8),
      /truncated XML: unterminated attribute value at line 11/,
    ],
    [
      'a missing </gesmes:Envelope>',
      DAILY.slice(0, DAILY.lastIndexOf('</gesmes')),
      /truncated XML: <gesmes:Envelope> opened at line 2, column 1 is never closed \(the text ends at line \d+/,
    ],
    ['an unclosed day Cube', DAILY.replace('\t\t</Cube>\n', ''), /closing tag <\/gesmes:Envelope> does not match <Cube> opened at line 7/],
    ['an envelope without rates', '<gesmes:Envelope><gesmes:subject>x</gesmes:subject></gesmes:Envelope>', /has no <Cube> with rates/],
    ['a second root element', `${DAILY}<gesmes:Envelope/>`, /unexpected <gesmes:Envelope> after the root element/],
    ['a duplicate date', fixture('duplicate-date.xml'), /duplicate date 2026-04-13 at line 15, column 3 \(first at line 8, column 3\)/],
    ['a negative rate', fixture('bad-rate-negative.xml'), /invalid rate "-1" for JPY on 2026-04-13 .* at line 10, column 4/],
    ['a rate with a decimal comma', fixture('bad-rate-comma.xml'), /invalid rate "1,5" for USD/],
    ['a day that does not exist', fixture('bad-date.xml'), /invalid date "2026-02-31" .* at line 8, column 3/],
    ['a date in another format', dailyWith(rate('USD', '1.1'), '13.04.2026'), /invalid date "13.04.2026"/],
    ['a zero rate', dailyWith(rate('USD', '0.0000')), /invalid rate "0.0000"/],
    ['a rate in exponent notation', dailyWith(rate('USD', '1e5')), /invalid rate "1e5"/],
    ['a rate without integer digits', dailyWith(rate('USD', '.5')), /invalid rate ".5"/],
    ['a rate ending in a point', dailyWith(rate('USD', '1.')), /invalid rate "1."/],
    ['a rate with a space', dailyWith(rate('USD', ' 1.5')), /invalid rate " 1.5"/],
    ['a rate with 13 decimals', dailyWith(rate('USD', '1.1234567890123')), /invalid rate "1.1234567890123"/],
    ['an empty rate', dailyWith(rate('USD', '')), /invalid rate ""/],
    ['a lower-case currency', dailyWith(rate('usd', '1.1')), /invalid currency code "usd"/],
    ['a two-letter currency', dailyWith(rate('US', '1.1')), /invalid currency code "US"/],
    ['a quoted EUR', dailyWith(rate('EUR', '1')), /EUR is the base currency and cannot be quoted on 2026-04-13/],
    ['a currency twice in a day', dailyWith(rate('USD', '1.1') + rate('USD', '1.2')), /duplicate currency USD on 2026-04-13/],
    ['a day without rates', dailyWith(''), /no rates for 2026-04-13 at line 8/],
    ['a rate Cube without rate', dailyWith("<Cube currency='USD'/>"), /unexpected <Cube currency> inside <Cube>/],
    ['a rate Cube with an extra attribute', dailyWith("<Cube currency='USD' rate='1' x='1'/>"), /unexpected <Cube currency,rate,x>/],
    ['an unknown element among the rates', dailyWith('<Rate/>'), /unexpected <Rate> inside <Cube>/],
    ['text among the rates', dailyWith(`${rate('USD', '1.1')}oops`), /unexpected text inside <Cube>/],
    ['an unquoted attribute', dailyWith('<Cube currency=USD rate=1.1/>'), /attribute value must be quoted/],
    ['a < inside an attribute value', dailyWith("<Cube currency='U<SD' rate='1'/>"), /unterminated attribute value/],
    ['attributes without a space between them', dailyWith("<Cube currency='USD'rate='1'/>"), /expected a space before an attribute/],
    ['a CDATA section', dailyWith('<![CDATA[x]]>'), /unexpected markup "<!\[CDATA/],
    ['a stray closing tag', `${DAILY}</Cube>`, /unexpected closing tag <\/Cube>/],
  ])('%s', (_, text, message) => {
    expect(() => parseEcbXml(text)).toThrow(EcbFormatError);
    expect(() => parseEcbXml(text)).toThrow(message);
  });
});
