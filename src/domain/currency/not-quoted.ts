import { ApiError } from '../errors';
import type { QuoteSpan } from './registry';
import { fixedRateText, successionOf } from './successions';

/** The days asked about: one publication, or a range of them. */
export type Asked = { date: string } | { start: string; end: string };

const phrase = (asked: Asked): string => ('date' in asked ? `on ${asked.date}` : `from ${asked.start} to ${asked.end}`);
const lastDay = (asked: Asked): string => ('date' in asked ? asked.date : asked.end);
const firstDay = (asked: Asked): string => ('date' in asked ? asked.date : asked.start);

/**
 * Why the ECB has no rate of `code` on the days asked about, in one sentence that says what to do
 * instead: when it was last (or first) quoted and, for a currency the law replaced, the fixed rate
 * to use. `span` is where its quotes begin and end in the stored history.
 *
 *   "HRK was last quoted on 2022-12-30; since 2023-01-01 1 EUR = 7.53450 HRK (irrevocable)."
 */
export function notQuotedMessage(code: string, asked: Asked, span: QuoteSpan | undefined): string {
  if (!span) return `The ECB has no ${code} rate ${phrase(asked)}: no stored publication quotes ${code}.`;
  if (firstDay(asked) > span.last) {
    const head = `${code} was last quoted on ${span.last}`;
    const succession = successionOf(code);
    if (succession && lastDay(asked) >= succession.since) {
      const what = succession.kind === 'euro' ? 'irrevocable' : 'redenomination';
      return `${head}; since ${succession.since} ${fixedRateText(succession)} (${what}).`;
    }
    return `${head}; the ECB has not quoted it since.`;
  }
  if (lastDay(asked) < span.first) return `${code} was first quoted on ${span.first}; the ECB has no ${code} rate ${phrase(asked)}.`;
  return `The ECB did not quote ${code} ${phrase(asked)} (it quoted ${code} from ${span.first} to ${span.last}, with gaps).`;
}

/** RATE_NOT_FOUND for `code` on the days asked about, blaming `param`. */
export function notQuoted(code: string, asked: Asked, span: QuoteSpan | undefined, param: string): ApiError {
  return new ApiError('RATE_NOT_FOUND', notQuotedMessage(code, asked, span), { param });
}
