/**
 * A JSON reader that keeps every number as the text the publisher wrote ("0.1000", "2.50"),
 * since a float cannot hold most decimal fractions, and knows the line each object or array starts
 * on, so a skipped row can be named by its line. Strings are decoded by JSON.parse itself.
 */

/** A JSON number, as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** The text is not JSON: where and why. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

export interface JsonDocument {
  readonly value: JsonValue;
  /** The 1-based line on which an object or array of the document starts. */
  lineOf(node: JsonValue): number;
}

// Control characters must be escaped inside a JSON string, so the class excludes them.
// eslint-disable-next-line no-control-regex
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SPACE = /[ \t\n\r]*/y;
/** Deeper than any publisher's answer; it keeps a hostile body from exhausting the stack. */
const MAX_DEPTH = 64;

class Reader {
  pos = 0;
  readonly starts = new WeakMap<object, number>();
  constructor(readonly text: string) {}

  private newlines: number[] | undefined;

  /** The line of an offset: a binary search in the offsets of the line breaks, found once. */
  lineAt(offset: number): number {
    if (!this.newlines) {
      this.newlines = [];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) this.newlines.push(i);
    }
    let low = 0;
    let high = this.newlines.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.newlines[mid]! < offset) low = mid + 1;
      else high = mid;
    }
    return low + 1;
  }

  fail(reason: string, at = this.pos): never {
    throw new JsonSyntaxError(this.lineAt(at), reason);
  }

  space(): void {
    SPACE.lastIndex = this.pos;
    SPACE.test(this.text);
    this.pos = SPACE.lastIndex;
  }

  token(pattern: RegExp, what: string): string {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) this.fail(`expected ${what}`);
    this.pos = pattern.lastIndex;
    return match[0];
  }

  value(depth: number): JsonValue {
    if (depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`);
    this.space();
    const c = this.text[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return JSON.parse(this.token(STRING, 'a string')) as string;
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return literal;
      }
    }
    if (c === undefined) this.fail('the text ends where a value is expected');
    return new JsonNumber(this.token(NUMBER, 'a value'));
  }

  array(depth: number): JsonValue[] {
    const items: JsonValue[] = [];
    this.starts.set(items, this.pos);
    this.pos += 1;
    this.space();
    if (this.text[this.pos] === ']') {
      this.pos += 1;
      return items;
    }
    for (;;) {
      items.push(this.value(depth + 1));
      if (this.punctuation(',]') === ']') return items;
    }
  }

  object(depth: number): JsonObject {
    const members = Object.create(null) as Record<string, JsonValue>;
    this.starts.set(members, this.pos);
    this.pos += 1;
    this.space();
    if (this.text[this.pos] === '}') {
      this.pos += 1;
      return members;
    }
    for (;;) {
      this.space();
      const at = this.pos;
      const key = JSON.parse(this.token(STRING, 'a member name')) as string;
      if (Object.hasOwn(members, key)) this.fail(`the member ${JSON.stringify(key)} appears twice`, at);
      this.punctuation(':');
      members[key] = this.value(depth + 1);
      if (this.punctuation(',}') === '}') return members;
    }
  }

  /** Skips space, then expects one of the characters in `allowed`. */
  punctuation(allowed: string): string {
    this.space();
    const c = this.text[this.pos];
    if (c === undefined || !allowed.includes(c)) this.fail(`expected ${[...allowed].map((a) => `"${a}"`).join(' or ')}`);
    this.pos += 1;
    return c;
  }
}

/** Reads a whole JSON text (a leading byte-order mark is not JSON; decode bytes with TextDecoder first). */
export function readJson(text: string): JsonDocument {
  const reader = new Reader(text);
  const value = reader.value(0);
  reader.space();
  if (reader.pos < text.length) reader.fail('text after the JSON value');
  return {
    value,
    lineOf: (node) =>
      typeof node === 'object' && node !== null && !(node instanceof JsonNumber) ? reader.lineAt(reader.starts.get(node) ?? 0) : 1,
  };
}

/** An object (not an array, not null), or undefined. */
export function asObject(value: JsonValue | undefined): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber)
    ? (value as JsonObject)
    : undefined;
}

/** The text of a JSON number or a string, or undefined for anything else. */
export function scalarText(value: JsonValue | undefined): string | undefined {
  if (value instanceof JsonNumber) return value.text;
  return typeof value === 'string' ? value : undefined;
}
