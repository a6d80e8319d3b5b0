import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EcbFormatError, parseEcbFile, RateTable, samePublication, validateUpdate, type Publication } from '../../domain/ecb';
import type { RatesCache } from './cache';
import type { RatesSnapshot } from './snapshot';

/** A file or feed refused before anything was stored: unreadable, malformed or failing the update checks. */
export class RatesSourceError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RatesSourceError';
  }
}

/** RATES_FILE could not be imported at start: the server stops with this one line rather than serve without it. */
export class RatesFileError extends Error {
  constructor(file: string, cause: RatesSourceError) {
    // The source's message names the file's base name or path again: once is enough here.
    const detail = cause.message
      .replace(/^cannot read the rates file: /, '')
      .replace(`${file} `, '')
      .replace(`${path.basename(file)}: `, '');
    super(`RATES_FILE ${file} cannot be used: ${detail}`, { cause });
    this.name = 'RatesFileError';
  }
}

export async function readSource(file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new RatesSourceError(`cannot read the rates file: ${fileErrorReason(error as NodeJS.ErrnoException)}`, { cause: error });
  }
}

/** `no such file or directory (ENOENT)`: node's own words without the code and path it repeats around them. */
function fileErrorReason(error: NodeJS.ErrnoException): string {
  if (error.code === undefined) return error.message;
  const words = error.message.replace(`${error.code}: `, '').replace(/, \w+( '.*')?$/, '');
  return `${words} (${error.code})`;
}

/** parseEcbFile, with a format error reported as the source being refused. */
export function parseSource(bytes: Uint8Array, name: string): Publication[] {
  try {
    return parseEcbFile(bytes, name);
  } catch (error) {
    throw error instanceof EcbFormatError ? new RatesSourceError(error.message, { cause: error }) : error;
  }
}

export interface UpdateCounts {
  publications: number;
  added: number;
  replaced: number;
}

/**
 * Why `incoming` must not be merged (empty = it may): the domain's checks (empty, duplicate days,
 * a day with fewer than half the currencies of the newest held, a feed older than the newest held)
 * plus one only a clock can tell: no publication may be dated after today in Berlin.
 */
export function updateProblems(snapshot: RatesSnapshot, incoming: readonly Publication[], daily: boolean, today: string): string[] {
  // validateUpdate only looks at the newest stored day, which is all that memory holds.
  const held = RateTable.from(snapshot.latest ? [snapshot.latest] : []);
  const problems = validateUpdate(held, incoming, { daily });
  const future = incoming.filter((pub) => pub.date > today).map((pub) => pub.date);
  if (future.length > 0) problems.push(`publications dated after today (${today}, Europe/Berlin): ${future.slice(0, 5).join(', ')}`);
  return problems;
}

/**
 * The publications to store, with RateTable.merge's rule: a new day is added; a stored day equal
 * as decimals keeps its stored strings (the history CSV writes "143.2" where the XML had "143.20");
 * a different one replaces it, as an ECB correction does. One cache read for all known days.
 */
export async function changesOf(
  cache: RatesCache,
  snapshot: RatesSnapshot,
  incoming: readonly Publication[],
): Promise<{ changed: Publication[]; added: number; replaced: number }> {
  const known = new Set(snapshot.dates);
  const overlap = incoming.filter((pub) => known.has(pub.date));
  const stored = new Map(
    (await cache.readPublications(overlap.map((pub) => pub.date))).flatMap((pub) => (pub ? [[pub.date, pub] as const] : [])),
  );
  const changed: Publication[] = [];
  let added = 0;
  let replaced = 0;
  for (const pub of incoming) {
    const before = stored.get(pub.date);
    if (before && samePublication(before, pub)) continue;
    changed.push(pub);
    if (before) replaced += 1;
    else added += 1;
  }
  return { changed, added, replaced };
}
