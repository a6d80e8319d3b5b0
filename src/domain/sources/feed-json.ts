import { asObject, type JsonDocument, type JsonObject, type JsonValue, JsonSyntaxError, readJson, scalarText } from './json-text';
import { FeedFormatError, type SourceId } from './types';
import { RowRejected, show } from './feed-collector';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as UTF-8 text (a byte-order mark dropped); bytes that are not UTF-8 fail the import. */
export function utf8Text(source: SourceId, body: Uint8Array): string {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new FeedFormatError(source, 1, 'the response is not UTF-8 text');
  }
  if (text.trim() === '') throw new FeedFormatError(source, 1, 'the response is empty');
  return text;
}

/** The body read as JSON with exact number texts; text that is not JSON fails the import. */
export function feedJson(source: SourceId, body: Uint8Array): JsonDocument {
  try {
    return readJson(utf8Text(source, body));
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new FeedFormatError(source, error.line, `not JSON: ${error.reason}`);
    throw error;
  }
}

/** An array member the publisher always sends, or the import fails. */
export function requiredArray(source: SourceId, doc: JsonDocument, value: JsonValue | undefined, what: string): JsonValue[] {
  if (!Array.isArray(value)) throw new FeedFormatError(source, value === undefined ? 1 : doc.lineOf(value), `${what} is not an array`);
  return value;
}

/** A row of the response as an object, or the row is skipped. */
export function rowObject(value: JsonValue): JsonObject {
  const row = asObject(value);
  if (!row) throw new RowRejected('the row is not a JSON object');
  return row;
}

/** The text of a member that must be a string. */
export function stringMember(row: JsonObject, name: string): string {
  const value = row[name];
  if (typeof value !== 'string') throw new RowRejected(`"${name}" is missing or not a string`);
  return value;
}

/** The text of a member that must be a JSON number, exactly as written. */
export function numberMember(row: JsonObject, name: string): string {
  const value = row[name];
  const text = scalarText(value);
  if (text === undefined || typeof value === 'string') throw new RowRejected(`"${name}" is missing or not a number`);
  return text;
}

export { show };
