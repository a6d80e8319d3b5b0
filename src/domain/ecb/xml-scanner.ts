import { EcbFormatError, show } from './validate';

/** A tag, or non-blank character data, with the offset where it starts. */
export type XmlToken =
  | { kind: 'open' | 'empty'; name: string; attrs: ReadonlyMap<string, string>; at: number }
  | { kind: 'close'; name: string; at: number }
  | { kind: 'text'; at: number };

const LT = 60; // <
const GT = 62; // >
const SLASH = 47;
const EQ = 61;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function isNameChar(c: number): boolean {
  // A-Z a-z 0-9 _ : . -  (enough for the ECB's element and attribute names)
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 58 || c === 46 || c === 45;
}

/**
 * A small strict tokenizer for the subset of XML the ECB feeds use: one optional XML declaration,
 * comments, elements with quoted attributes, and text. Anything else (DOCTYPE, CDATA, processing
 * instructions) is refused, which is also how an HTML error page is caught early. It reads each
 * character once and never backtracks.
 */
export class XmlScanner {
  private readonly text: string;
  private pos = 0;

  constructor(text: string) {
    this.text = text;
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
    this.skipSpace();
    if (text.startsWith('<?xml', this.pos)) {
      const end = text.indexOf('?>', this.pos);
      if (end < 0) this.fail('truncated XML: the XML declaration is not closed', this.pos);
      this.pos = end + 2;
    }
  }

  /** "line L, column C" of an offset; only computed for messages. */
  where(at: number): string {
    let line = 1;
    let lineStart = 0;
    for (let i = this.text.indexOf('\n'); i >= 0 && i < at; i = this.text.indexOf('\n', i + 1)) {
      line += 1;
      lineStart = i + 1;
    }
    return `line ${line}, column ${at - lineStart + 1}`;
  }

  fail(message: string, at: number): never {
    throw new EcbFormatError(`${message} at ${this.where(at)}`);
  }

  /** The next token, or undefined at the end of the text. */
  next(): XmlToken | undefined {
    const t = this.text;
    while (this.pos < t.length) {
      const start = this.pos;
      if (t.charCodeAt(start) !== LT) {
        const lt = t.indexOf('<', start);
        this.pos = lt < 0 ? t.length : lt;
        for (let i = start; i < this.pos; i++) if (!isSpace(t.charCodeAt(i))) return { kind: 'text', at: i };
        continue;
      }
      if (t.startsWith('<!--', start)) {
        const end = t.indexOf('-->', start + 4);
        if (end < 0) this.fail('truncated XML: unterminated comment', start);
        this.pos = end + 3;
        continue;
      }
      if (t.startsWith('<!', start) || t.startsWith('<?', start)) {
        this.fail(`not an ECB XML document: unexpected markup ${show(t.slice(start, start + 12))}`, start);
      }
      return t.charCodeAt(start + 1) === SLASH ? this.closeTag(start) : this.openTag(start);
    }
    return undefined;
  }

  private closeTag(start: number): XmlToken {
    this.pos = start + 2;
    const name = this.name(start);
    this.skipSpace();
    this.expect(GT, start);
    return { kind: 'close', name, at: start };
  }

  private openTag(start: number): XmlToken {
    this.pos = start + 1;
    const name = this.name(start);
    const attrs = new Map<string, string>();
    for (;;) {
      const hadSpace = this.skipSpace();
      const c = this.peek(start);
      if (c === GT || c === SLASH) break;
      if (!hadSpace) this.fail(`malformed tag <${name}>: expected a space before an attribute`, this.pos);
      const attrAt = this.pos;
      const attr = this.name(start);
      this.skipSpace();
      this.expect(EQ, start);
      this.skipSpace();
      const value = this.quoted(start);
      if (attrs.has(attr)) this.fail(`duplicate attribute ${attr} in <${name}>`, attrAt);
      attrs.set(attr, value);
    }
    const empty = this.peek(start) === SLASH;
    if (empty) this.pos += 1;
    this.expect(GT, start);
    return { kind: empty ? 'empty' : 'open', name, attrs, at: start };
  }

  private name(tagStart: number): string {
    const from = this.pos;
    while (this.pos < this.text.length && isNameChar(this.text.charCodeAt(this.pos))) this.pos += 1;
    if (this.pos === from) {
      this.peek(tagStart);
      this.fail(`malformed tag: expected a name, found ${show(this.text.slice(from, from + 10))}`, from);
    }
    return this.text.slice(from, this.pos);
  }

  private quoted(tagStart: number): string {
    const quote = this.peek(tagStart);
    if (quote !== 39 && quote !== 34) this.fail('malformed tag: attribute value must be quoted', this.pos);
    const from = this.pos + 1;
    const end = this.text.indexOf(quote === 39 ? "'" : '"', from);
    const lt = this.text.indexOf('<', from);
    if (end < 0 || (lt >= 0 && lt < end)) this.fail('truncated XML: unterminated attribute value', this.pos);
    this.pos = end + 1;
    return this.text.slice(from, end);
  }

  /** The current character code; the end of the text here means the tag was cut off. */
  private peek(tagStart: number): number {
    if (this.pos >= this.text.length) this.fail('truncated XML: unterminated tag', tagStart);
    return this.text.charCodeAt(this.pos);
  }

  private expect(code: number, tagStart: number): void {
    if (this.peek(tagStart) !== code) {
      this.fail(`malformed tag: expected ${show(String.fromCharCode(code))}, found ${show(this.text[this.pos]!)}`, this.pos);
    }
    this.pos += 1;
  }

  private skipSpace(): boolean {
    const from = this.pos;
    while (this.pos < this.text.length && isSpace(this.text.charCodeAt(this.pos))) this.pos += 1;
    return this.pos > from;
  }
}
