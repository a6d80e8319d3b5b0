import { parseBoc } from './boc';
import { parseBoi } from './boi';
import { parseCbr } from './cbr';
import { parseCnb } from './cnb';
import { parseImf } from './imf';
import { parseNb } from './nb';
import { parseNbp } from './nbp';
import { parseNbu } from './nbu';
import type { ParsedFeed, SourceId } from './types';

export { FeedFormatError, type FeedRowIssue, type ParsedFeed, type SourceFigure, type SourcePublication } from './types';
export { parseBoc, parseBoi, parseCbr, parseCnb, parseImf, parseNb, parseNbp, parseNbu };

const LOADERS: Readonly<Record<Exclude<SourceId, 'ecb'>, (body: Uint8Array) => ParsedFeed>> = {
  boc: parseBoc,
  nb: parseNb,
  cnb: parseCnb,
  nbp: parseNbp,
  cbr: parseCbr,
  boi: parseBoi,
  imf: parseImf,
  nbu: parseNbu,
};

/**
 * Reads one response of a publisher, as the bytes it sent: the publications it holds (one per
 * table and day, each figure as published) and the rows skipped with their reasons. A response
 * that is not of the publisher's shape throws a FeedFormatError.
 */
export function parseFeed(source: Exclude<SourceId, 'ecb'>, body: Uint8Array): ParsedFeed {
  const load = LOADERS[source];
  if (!load) throw new TypeError(`parseFeed: no loader for the source ${JSON.stringify(source)}`);
  return load(body);
}
