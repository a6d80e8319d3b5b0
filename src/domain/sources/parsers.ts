import { FeedFormatError, type ParsedFeed } from './types';
import type { SourceId } from './types';

/**
 * Placeholder until the feed parsers land (branch `feeds`): every body is refused, so nothing is
 * ever written from a feed this build cannot read.
 */
export function parseFeed(source: SourceId, _body: Uint8Array): ParsedFeed {
  throw new FeedFormatError(source, 1, 'this build has no parser for this source yet');
}
