import { SOURCES, type SourceInfo } from '../../domain/sources/catalog';
import { expectedNext, isBehind } from '../../domain/sources/freshness';
import type { SourceHistory } from '../../domain/sources/history';
import type { HeldSources } from './held-sources';
import type { RatesReader } from './rates';

/** One table of a source as `/v1/sources` lists it: its schedule and how fresh it is. */
export interface SourceTableListing {
  readonly id: string;
  readonly base: string;
  readonly schedule: string;
  readonly timeZone: string;
  readonly dueBy: string;
  readonly lastPublication: string | null;
  readonly expectedNext: string | null;
  readonly stale: boolean;
}

/** A source as `/v1/sources` lists it. */
export interface SourceListing {
  readonly id: SourceInfo['id'];
  readonly publisher: string;
  readonly base: string;
  readonly terms: string;
  readonly home: string;
  /** Currencies its newest publications still carry, its base included. */
  readonly currencies: number;
  readonly firstPublication: string | null;
  readonly lastPublication: string | null;
  /** True when any of its tables is behind its schedule, or its last fetch failed. */
  readonly stale: boolean;
  readonly fetchedAt: string | null;
  readonly lastError: string | null;
  readonly tables: readonly SourceTableListing[];
}

function ecbListing(info: SourceInfo, rates: RatesReader): SourceListing {
  const status = rates.status();
  const latest = rates.latest();
  const table = info.tables[0]!;
  return {
    ...describe(info),
    currencies: latest ? Object.keys(latest.rates).length + 1 : 0,
    firstPublication: rates.publicationDates?.()[0] ?? null,
    lastPublication: status.date,
    stale: status.stale,
    fetchedAt: status.fetchedAt,
    lastError: status.lastError,
    tables: [
      {
        ...scheduleOf(table),
        lastPublication: status.date,
        expectedNext: status.date && expectedNext(table.schedule, status.date),
        stale: status.stale,
      },
    ],
  };
}

const describe = ({ id, publisher, base, terms, home }: SourceInfo) => ({ id, publisher, base, terms, home });
const scheduleOf = ({ id, base, schedule }: SourceInfo['tables'][number]) => ({
  id,
  base,
  schedule: schedule.description,
  timeZone: schedule.timeZone,
  dueBy: schedule.dueBy,
});

function sourceListing(info: SourceInfo, history: SourceHistory, held: HeldSources, now: Date): SourceListing {
  const fetch = held.status?.(info.id);
  const tables = info.tables.map((table) => {
    const newest = history.latestOfTable(info.id, table.id) ?? null;
    return {
      ...scheduleOf(table),
      lastPublication: newest,
      expectedNext: newest && expectedNext(table.schedule, newest),
      stale: isBehind(table.schedule, newest ?? undefined, now),
    };
  });
  const quoted = history.quoted(info.id);
  const carried = [...quoted.keys()].filter((code) => history.figures(info.id, code).length > 0);
  const firsts = [...quoted.values()].map((span) => span.first).sort();
  return {
    ...describe(info),
    currencies: carried.length,
    firstPublication: firsts[0] ?? null,
    lastPublication: history.latest(info.id) ?? null,
    stale: tables.some((t) => t.stale) || (fetch?.lastError ?? null) !== null,
    fetchedAt: fetch?.fetchedAt ?? null,
    lastError: fetch?.lastError ?? null,
    tables,
  };
}

/** Every served source, in the order a conversion tries them, with its publisher, schedule, terms and freshness. */
export function listSources(rates: RatesReader, held: HeldSources, now: Date): SourceListing[] {
  const served = held.enabled();
  const history = held.history();
  return SOURCES.filter((s) => served.includes(s.id)).map((info) =>
    info.id === 'ecb' ? ecbListing(info, rates) : sourceListing(info, history, held, now),
  );
}
