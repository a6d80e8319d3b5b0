import { currencyEntry, NO_SPANS, type CurrencyEntry } from '../currency/registry';
import type { SourceHistory } from './history';
import type { SourceId } from './types';

/** Where one source's quotes of a currency begin and end. */
export interface SourceQuoteSpan {
  readonly source: SourceId;
  readonly first: string;
  readonly last: string;
}

/** A currency of the registry with every source that quotes it. */
export type SourcedCurrencyEntry = CurrencyEntry & { readonly sources: readonly SourceQuoteSpan[] };

const ECB_SPAN = (entry: CurrencyEntry): SourceQuoteSpan[] =>
  entry.firstDate !== null && entry.lastDate !== null ? [{ source: 'ecb', first: entry.firstDate, last: entry.lastDate }] : [];

/** The earliest first and latest last day of a currency's spans, or the entry's own when none. */
function widen(entry: CurrencyEntry, spans: readonly SourceQuoteSpan[]): Pick<CurrencyEntry, 'firstDate' | 'lastDate'> {
  if (spans.length === 0) return { firstDate: entry.firstDate, lastDate: entry.lastDate };
  return {
    firstDate: spans.reduce((min, s) => (s.first < min ? s.first : min), spans[0]!.first),
    lastDate: spans.reduce((max, s) => (s.last > max ? s.last : max), spans[0]!.last),
  };
}

/**
 * The registry over every served source: the ECB's currencies (EUR first, then by code) with the
 * currencies only other sources quote merged in by code, each with the sources that quote it, its
 * first and last day over all of them, and `active` while any source's newest publication still
 * carries it. A source's own base counts as quoted by it.
 */
export function sourcedRegistry(
  ecb: readonly CurrencyEntry[],
  history: SourceHistory,
  served: readonly SourceId[],
): SourcedCurrencyEntry[] {
  const others = served.filter((id) => id !== 'ecb');
  const byCode = new Map<string, CurrencyEntry>(ecb.map((e) => [e.code, e]));
  for (const id of others)
    for (const code of history.quoted(id).keys()) if (!byCode.has(code)) byCode.set(code, currencyEntry(code, NO_SPANS));
  const codes = [...byCode.keys()].filter((c) => c !== 'EUR').sort();
  return (byCode.has('EUR') ? ['EUR', ...codes] : codes).map((code) => {
    const entry = byCode.get(code)!;
    const spans = [...(served.includes('ecb') ? ECB_SPAN(entry) : [])];
    let active = entry.status === 'active' && entry.firstDate !== null;
    for (const id of others) {
      const span = history.quoted(id).get(code);
      if (!span) continue;
      spans.push({ source: id, first: span.first, last: span.last });
      if (history.figures(id, code).length > 0) active = true;
    }
    return { ...entry, ...widen(entry, spans), status: active ? 'active' : 'retired', sources: spans };
  });
}
