import type { Publication } from '../../domain/ecb';
import { ApiError } from '../../domain/errors';
import { isSourceId, SOURCES } from '../../domain/sources/catalog';
import { SourceHistory, type ResolvedFigure } from '../../domain/sources/history';
import type { PairLookup } from '../../domain/sources/route';
import { SOURCE_IDS, type SourceId } from '../../domain/sources/types';

/** The publications of the sources other than the ECB as this process holds them, and which sources it serves. */
export interface HeldSources {
  /** The history as held now; a new object whenever it changes, so its identity can key what is computed from it. */
  history(): SourceHistory;
  /** The sources this instance serves (RATE_SOURCES), in catalogue order; the ECB always among them. */
  enabled(): readonly SourceId[];
  /** What the source's loader knows of its last fetch; absent for sources only ever imported. */
  status?(source: SourceId): SourceFetchStatus | undefined;
}

/** The last fetch of a source by this deployment. */
export interface SourceFetchStatus {
  /** When its publications were last fetched or imported successfully (ISO 8601). */
  readonly fetchedAt: string | null;
  /** The last fetch or read error (a response that no longer parses, the publisher down), until one succeeds. */
  readonly lastError: string | null;
}

/** The ECB alone: what a process without other sources serves. */
export const ECB_ONLY: HeldSources = Object.freeze({ history: () => SourceHistory.EMPTY, enabled: () => ['ecb'] as const });

/** A `source` input: absent, or one of the served sources; anything else is INVALID_REQUEST listing them. */
export function parseSource(value: unknown, held: HeldSources, param = 'source'): SourceId | undefined {
  if (value === undefined || value === null) return undefined;
  const served = held.enabled();
  if (!isSourceId(value)) {
    throw new ApiError('INVALID_REQUEST', `${param} must be one of ${served.join(', ')}.`, {
      param,
      seeAlso: 'sources',
    });
  }
  // A source of the catalogue this instance does not load has no rates here: not found, as a pair no source quotes.
  if (!served.includes(value)) {
    throw new ApiError('RATE_NOT_FOUND', `${value} is not served by this instance (RATE_SOURCES); it serves ${served.join(', ')}.`, {
      param,
      seeAlso: 'sources',
    });
  }
  return value;
}

/** The ECB publication's figures in the sources' shape: units of each currency per euro, as published. */
function ecbFigure(publication: Publication, code: string): ResolvedFigure | undefined {
  const value = code === 'EUR' ? '1' : publication.rates[code];
  if (value === undefined) return undefined;
  return {
    source: 'ecb',
    table: '',
    date: publication.date,
    base: 'EUR',
    code,
    figure: { value, units: '1', direction: 'units-per-base' },
  };
}

/** The pairs of figures of every source on a day (or their latest), the ECB's from its publication in effect then. */
export function pairsOn(history: SourceHistory, ecb: Publication | undefined, date: string | undefined): PairLookup {
  return (source, from, to) => {
    if (source !== 'ecb') return history.pair(source, from, to, date);
    const a = ecb && ecbFigure(ecb, from);
    const b = ecb && ecbFigure(ecb, to);
    return a && b ? [a, b] : undefined;
  };
}

const codesCache = new WeakMap<SourceHistory, ReadonlySet<string>>();

/** Every code any held source has quoted, its bases included. */
export function sourceCodes(history: SourceHistory): ReadonlySet<string> {
  let codes = codesCache.get(history);
  if (!codes) {
    const all = new Set<string>();
    for (const id of SOURCE_IDS) if (id !== 'ecb') for (const code of history.quoted(id).keys()) all.add(code);
    codes = all;
    codesCache.set(history, codes);
  }
  return codes;
}

/** The catalogue's sources restricted to a RATE_SOURCES list (the ECB always served). */
export function servedSources(ids: readonly SourceId[] | 'all'): readonly SourceId[] {
  return SOURCES.map((s) => s.id).filter((id) => ids === 'all' || id === 'ecb' || ids.includes(id));
}
