import type { Publication } from './types';
import { dateProblem, EcbFormatError, PublicationCollector, rateEntryProblem } from './validate';
import { XmlScanner, type XmlToken } from './xml-scanner';

export { EcbFormatError } from './validate';

/**
 * Where an element sits in the gesmes envelope:
 * envelope > header* (gesmes:subject, gesmes:Sender…) and envelope > data Cube > day Cube > rate Cube.
 */
type Role = 'envelope' | 'header' | 'data' | 'day' | 'rate';

interface Frame {
  readonly name: string;
  readonly role: Role;
  readonly at: number;
}

type Tag = Extract<XmlToken, { attrs: unknown }>;

const ROOT = 'gesmes:Envelope';

/**
 * Parses `eurofxref-daily.xml`, `eurofxref-hist-90d.xml` or `eurofxref-hist.xml`.
 * Returns the publications oldest first; throws EcbFormatError on anything else.
 */
export function parseEcbXml(text: string): Publication[] {
  // Annotated so that `scanner.fail(...)` (returns never) narrows types after it.
  const scanner: XmlScanner = new XmlScanner(text);
  const days = new PublicationCollector<number>((at) => scanner.where(at));
  const stack: Frame[] = [];
  let sawRoot = false;
  let sawData = false;
  let day: { date: string; rates: Record<string, string>; at: number } | undefined;

  const roleOf = (tag: Tag, parent: Frame | undefined): Role => {
    const isCube = tag.name === 'Cube';
    const attrs = [...tag.attrs.keys()].sort().join(',');
    if (!parent) {
      if (sawRoot) scanner.fail(`unexpected <${tag.name}> after the root element`, tag.at);
      if (tag.name !== ROOT) scanner.fail(`not an ECB document: root element is <${tag.name}>, expected <${ROOT}>`, tag.at);
      return 'envelope';
    }
    if (parent.role === 'envelope' && isCube && attrs === '') return 'data';
    if ((parent.role === 'envelope' || parent.role === 'header') && !isCube) return 'header';
    if (parent.role === 'data' && isCube && attrs === 'time') return 'day';
    if (parent.role === 'day' && isCube && attrs === 'currency,rate') return 'rate';
    const shown = attrs === '' ? `<${tag.name}>` : `<${tag.name} ${attrs}>`;
    return scanner.fail(`unexpected ${shown} inside <${parent.name}>`, tag.at);
  };

  const finishDay = (): void => {
    if (day) days.add(day.date, day.rates, day.at);
    day = undefined;
  };

  for (let token = scanner.next(); token; token = scanner.next()) {
    const parent = stack[stack.length - 1];
    if (token.kind === 'text') {
      // Only the gesmes header elements carry text; text elsewhere means this is not the feed.
      if (parent?.role !== 'header') {
        scanner.fail(parent ? `unexpected text inside <${parent.name}>` : 'not an ECB document: text outside the root element', token.at);
      }
      continue;
    }
    if (token.kind === 'close') {
      if (!parent) scanner.fail(`unexpected closing tag </${token.name}>`, token.at);
      if (parent.name !== token.name) {
        scanner.fail(`closing tag </${token.name}> does not match <${parent.name}> opened at ${scanner.where(parent.at)}`, token.at);
      }
      stack.pop();
      if (parent.role === 'day') finishDay();
      continue;
    }
    const role = roleOf(token, parent);
    if (role === 'envelope') sawRoot = true;
    if (role === 'data') {
      if (sawData) scanner.fail('a second data <Cube>', token.at);
      sawData = true;
    }
    if (role === 'day') {
      const date = token.attrs.get('time')!;
      const problem = dateProblem(date);
      if (problem) scanner.fail(problem, token.at);
      day = { date, rates: {}, at: token.at };
      if (token.kind === 'empty') finishDay();
    }
    if (role === 'rate') {
      const code = token.attrs.get('currency')!;
      const rate = token.attrs.get('rate')!;
      const problem = rateEntryProblem(day!.date, day!.rates, code, rate);
      if (problem) scanner.fail(problem, token.at);
      day!.rates[code] = rate;
    }
    if (token.kind === 'open') stack.push({ name: token.name, role, at: token.at });
  }

  const open = stack[stack.length - 1];
  if (open) {
    const end = scanner.where(text.length);
    throw new EcbFormatError(`truncated XML: <${open.name}> opened at ${scanner.where(open.at)} is never closed (the text ends at ${end})`);
  }
  if (!sawRoot) throw new EcbFormatError('not an ECB document: no XML element (empty body?)');
  if (!sawData) throw new EcbFormatError(`not an ECB document: <${ROOT}> has no <Cube> with rates`);
  return days.finish();
}
