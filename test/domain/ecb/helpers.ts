import { readFileSync } from 'node:fs';
import type { Publication } from '../../../src/domain/ecb';

const FIXTURES = new URL('../../fixtures/ecb/', import.meta.url);

export function fixtureBytes(name: string): Uint8Array {
  return readFileSync(new URL(name, FIXTURES));
}

export function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export interface XmlLayout {
  /** ' as in the daily feed, " as in the 90-day feed. */
  readonly quote: "'" | '"';
  /** Tab-indented lines (daily feed) or one line (90-day feed). */
  readonly indented: boolean;
}

/** Publications written in the ECB's gesmes envelope, newest first as the ECB does. */
export function renderXml(pubs: readonly Publication[], { quote: q, indented }: XmlLayout): string {
  const nl = (depth: number): string => (indented ? `\n${'\t'.repeat(depth)}` : '');
  const days = [...pubs]
    .reverse()
    .map((pub) => {
      const rates = Object.entries(pub.rates).map(([code, rate]) => `${nl(3)}<Cube currency=${q}${code}${q} rate=${q}${rate}${q}/>`);
      return `${nl(2)}<Cube time=${q}${pub.date}${q}>${rates.join('')}${nl(2)}</Cube>`;
    })
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>${indented ? '\n' : ''}` +
    '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">' +
    `${nl(1)}<gesmes:subject>Reference rates</gesmes:subject>${nl(1)}<gesmes:Sender>${nl(2)}<gesmes:name>European Central Bank</gesmes:name>${nl(1)}</gesmes:Sender>` +
    `${nl(1)}<Cube>${days}${nl(1)}</Cube>${indented ? '\n' : ''}</gesmes:Envelope>`
  );
}

/** Publications written as the wide history CSV: one column per code ever quoted, N/A gaps, trailing comma. */
export function renderCsv(pubs: readonly Publication[], eol = '\n'): string {
  const codes = [...new Set(pubs.flatMap((pub) => Object.keys(pub.rates)))];
  const rows = [...pubs].reverse().map((pub) => [pub.date, ...codes.map((code) => pub.rates[code] ?? 'N/A')]);
  return [['Date', ...codes], ...rows].map((cells) => `${cells.join(',')},${eol}`).join('');
}
