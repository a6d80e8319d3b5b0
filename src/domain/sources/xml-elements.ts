/**
 * A small XML reader for the Bank of Russia's answers: a declaration, elements with quoted
 * attributes, text and the five named entities plus numeric references. Comments are skipped;
 * DOCTYPE, CDATA and processing instructions are refused (an HTML error page fails early).
 */
export interface XmlElement {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** The element's own text, entities decoded, untrimmed. */
  text: string;
  readonly line: number;
}

export class XmlSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const TAG = /<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[A-Za-z_][\w.:-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>/y;
const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#x([0-9a-fA-F]{1,6}));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const MAX_DEPTH = 32;

function decode(text: string, line: number): string {
  const decoded = text.replace(ENTITY, (_, name: string, dec: string, hex: string) =>
    name ? NAMED[name]! : String.fromCodePoint(Math.min(Number.parseInt(dec ?? hex, dec ? 10 : 16), 0x10ffff)),
  );
  if (decoded.includes('&')) throw new XmlSyntaxError(line, 'an "&" that starts no entity');
  return decoded;
}

function attributes(text: string, line: number): Record<string, string> {
  const attrs = Object.create(null) as Record<string, string>;
  for (const m of text.matchAll(ATTR)) {
    if (Object.hasOwn(attrs, m[1]!)) throw new XmlSyntaxError(line, `the attribute ${m[1]} appears twice`);
    attrs[m[1]!] = decode(m[2] ?? m[3]!, line);
  }
  return attrs;
}

/** The root element of an XML text. */
export function readXml(text: string): XmlElement {
  let pos = text.startsWith('\ufeff') ? 1 : 0;
  let line = 1;
  const advance = (to: number) => {
    for (let i = text.indexOf('\n', pos); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) line += 1;
    pos = to;
  };
  const declaration = /^\s*<\?xml[^?]*\?>/.exec(text.slice(pos));
  if (declaration) advance(pos + declaration[0].length);
  const open: XmlElement[] = [];
  let root: XmlElement | undefined;
  while (pos < text.length) {
    const lt = text.indexOf('<', pos);
    const chunk = text.slice(pos, lt < 0 ? text.length : lt);
    if (chunk.trim() !== '' && open.length === 0) throw new XmlSyntaxError(line, 'text outside the root element');
    if (open.length > 0) open.at(-1)!.text += decode(chunk, line);
    advance(lt < 0 ? text.length : lt);
    if (lt < 0) break;
    if (text.startsWith('<!--', pos)) {
      const end = text.indexOf('-->', pos);
      if (end < 0) throw new XmlSyntaxError(line, 'a comment is not closed');
      advance(end + 3);
      continue;
    }
    TAG.lastIndex = pos;
    const tag = TAG.exec(text);
    if (!tag) throw new XmlSyntaxError(line, `not a tag: ${JSON.stringify(text.slice(pos, pos + 20))}`);
    const [whole, closing, name, attrText, empty] = tag;
    if (closing) {
      if (open.pop()?.name !== name) throw new XmlSyntaxError(line, `</${name}> closes no open <${name}>`);
    } else {
      if (root && open.length === 0) throw new XmlSyntaxError(line, 'a second root element');
      if (open.length >= MAX_DEPTH) throw new XmlSyntaxError(line, `nested deeper than ${MAX_DEPTH} elements`);
      const element: XmlElement = { name: name!, attrs: attributes(attrText!, line), children: [], text: '', line };
      if (open.length > 0) open.at(-1)!.children.push(element);
      else root = element;
      if (!empty) open.push(element);
    }
    advance(pos + whole.length);
  }
  if (!root) throw new XmlSyntaxError(line, 'no root element');
  if (open.length > 0) throw new XmlSyntaxError(line, `<${open.at(-1)!.name}> is not closed`);
  return root;
}
