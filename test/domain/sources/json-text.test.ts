import { describe, expect, it } from 'vitest';
import { JsonNumber, JsonSyntaxError, readJson } from '../../../src/domain/sources/json-text';

describe('readJson', () => {
  it.each(['13.579', '0.1000', '21.470', '1e-7', '-0', '12345678901234567890.123', '0.000062'])(
    'keeps the number %s as the text written',
    (text) => {
      const { value } = readJson(`{"rate": ${text}}`);
      expect((value as { rate: JsonNumber }).rate).toEqual(new JsonNumber(text));
    },
  );

  it('agrees with JSON.parse and its reviver source text on the values it reads', () => {
    const text = '[{"a":"x\\u00e9\\n","b":[true,false,null],"c":0.1000},{}]';
    const mine = JSON.stringify(readJson(text).value, (_, v) => (v instanceof JsonNumber ? `#${v.text}` : v));
    const native = JSON.stringify(
      JSON.parse(text, (_k, v, context?: { source?: string }) => (typeof v === 'number' ? `#${context!.source}` : v)),
    );
    expect(mine).toBe(native);
  });

  it('knows the line each object starts on', () => {
    const doc = readJson('[\n{"a":1},\n\n  {"a":2}\n]');
    const rows = doc.value as object[];
    expect(rows.map((row) => doc.lineOf(row as never))).toEqual([2, 4]);
  });

  it.each([
    ['', 1, /ends where a value/],
    ['{"a":1,}', 1, /member name/],
    ['[1,\n2\n', 3, /expected/],
    ['{"a":1,"a":2}', 1, /appears twice/],
    ['[01]', 1, /expected/],
    ['[1] x', 1, /after the JSON value/],
    ['<html>', 1, /expected a value/],
    ['["a\nb"]', 1, /expected/],
    ['['.repeat(100), 1, /deeper/],
  ])('refuses %j at line %i', (text, line, reason) => {
    let thrown: unknown;
    try {
      readJson(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonSyntaxError);
    expect((thrown as JsonSyntaxError).line).toBe(line);
    expect((thrown as JsonSyntaxError).reason).toMatch(reason);
  });
});
