/**
 * The currency rows: a keyed conversion the ECB quotes (`currency`) and one no single source
 * quotes, joined through two (`currency-two-source`: the Kenyan shilling in NBP's weekly table B to
 * gold in the NBU's daily table, through the US dollar). Their expected results are computed here
 * with decimal.js from the publishers' files as published (../shared, read in place), never from
 * the app's loaders or its answers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Decimal from 'decimal.js';
import { strFromU8, unzipSync } from 'fflate';

/** The day both rows convert on: an NBP table B Wednesday, quoted by the ECB, the NBP and the NBU. */
export const CURRENCY_DAY = '2026-03-04';
export const CURRENCY_CONVERT_PATH = '/v1/currency/convert';
export const ECB_CONVERT_BODY = JSON.stringify({ value: '1000', from: 'USD', to: 'JPY', date: CURRENCY_DAY });
export const TWO_SOURCE_CONVERT_BODY = JSON.stringify({ value: '1000000', from: 'KES', to: 'XAU', date: CURRENCY_DAY });
/** The feeds whose files the app's child imports for the two-source row. */
export const TWO_SOURCE_FEEDS = ['nbp', 'nbu'] as const;

const PRECISE = Decimal.clone({ precision: 80 });

/** The figure a CSV row of the ECB's history gives for `currency` on `day`. */
function ecbFigure(zipFile: string, day: string, currency: string): Decimal {
  const files = unzipSync(fs.readFileSync(zipFile));
  const csv = strFromU8(Object.values(files)[0]!);
  const lines = csv.split('\n');
  const header = lines[0]!.split(',').map((cell) => cell.trim());
  const row = lines.find((line) => line.startsWith(`${day},`));
  assert.ok(row, `no ECB row for ${day} in ${zipFile}`);
  const cell = row.split(',')[header.indexOf(currency)]?.trim();
  assert.ok(cell && /^\d+(\.\d+)?$/.test(cell), `no ECB figure for ${currency} on ${day}`);
  return new PRECISE(cell);
}

/** The text of a JSON number `field` in the record of `files` that matches every `where` pair, as the publisher wrote it. */
function publishedNumber(files: string[], where: Record<string, string>, field: string): string {
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    for (const record of text.split(/[{}]/)) {
      const matches = Object.entries(where).every(([name, value]) => record.includes(`"${name}":"${value}"`));
      const figure = new RegExp(`"${field}":(\\d+(?:\\.\\d+)?)`).exec(record)?.[1];
      if (matches && figure) return figure;
    }
  }
  throw new Error(`no ${field} for ${JSON.stringify(where)} in ${files.join(', ')}`);
}

const filesOf = (dir: string): string[] => fs.readdirSync(dir).map((file) => path.join(dir, file));

/** NBP's tables in one file per period: the record of `code` in the table effective on `day`. */
function nbpMid(dir: string, table: 'A' | 'B', day: string, code: string): Decimal {
  for (const file of filesOf(dir)) {
    const tables = JSON.parse(fs.readFileSync(file, 'utf8')) as { table: string; effectiveDate: string }[];
    if (!tables.some((t) => t.table === table && t.effectiveDate === day)) continue;
    // The figure's text, not JSON.parse's double: the table of that day, then the code's record.
    const text = fs.readFileSync(file, 'utf8');
    const at = text.indexOf(`"effectiveDate":"${day}"`);
    const end = text.indexOf('"effectiveDate"', at + 1);
    const figure = new RegExp(`"code":"${code}","mid":(\\d+(?:\\.\\d+)?)`).exec(text.slice(at, end < 0 ? undefined : end))?.[1];
    if (figure) return new PRECISE(figure);
  }
  throw new Error(`no NBP table ${table} figure for ${code} on ${day} in ${dir}`);
}

/** The NBU's hryvnias for one unit of `code` on `day` (its `rate` is for `units` units). */
function nbuPerUnit(dir: string, day: string, code: string): Decimal {
  const [y, m, d] = day.split('-');
  const where = { exchangedate: `${d}.${m}.${y}`, cc: code };
  const files = filesOf(dir);
  return new PRECISE(publishedNumber(files, where, 'rate')).div(publishedNumber(files, where, 'units'));
}

/** 1,000 US dollars in yen on CURRENCY_DAY, from the ECB's figures (yen and dollars per euro). */
export function expectedEcbConversion(zipFile: string): Decimal {
  return new PRECISE(1000).mul(ecbFigure(zipFile, CURRENCY_DAY, 'JPY')).div(ecbFigure(zipFile, CURRENCY_DAY, 'USD'));
}

/** 1,000,000 shillings in gold: to dollars on the NBP's zloty figures, then to gold on the NBU's hryvnia figures. */
export function expectedTwoSourceConversion(feedsDir: string): Decimal {
  const nbp = path.join(feedsDir, 'nbp');
  const nbu = path.join(feedsDir, 'nbu');
  const dollars = new PRECISE(1_000_000).mul(nbpMid(nbp, 'B', CURRENCY_DAY, 'KES')).div(nbpMid(nbp, 'A', CURRENCY_DAY, 'USD'));
  return dollars.mul(nbuPerUnit(nbu, CURRENCY_DAY, 'USD')).div(nbuPerUnit(nbu, CURRENCY_DAY, 'XAU'));
}

/** Throws unless `json` is a conversion to `unit` whose value is `expected` to 36 significant digits, from `source`. */
export function checkCurrencyAnswer(json: unknown, expected: Decimal, unit: string, source: string): void {
  const data = (json as { data?: { result?: { unit?: string; value?: string }; rate?: { source?: string } } }).data;
  assert.equal(data?.result?.unit, unit);
  assert.equal(data?.rate?.source, source);
  const value = new PRECISE(data?.result?.value ?? 'NaN');
  const gap = value.minus(expected).abs().div(expected);
  assert.ok(gap.lt('1e-36'), `${data?.result?.value} is not ${expected.toSignificantDigits(40).toString()}`);
}
