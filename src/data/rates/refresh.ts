import type { Publication } from '../../domain/ecb';
import type { ImportReport, Progress } from '../../services/currency/rates';
import { addDays } from '../../domain/calendar/berlin-time';
import type { RatesCache } from './cache';
import { ECB_FILES, type EcbClient, type EcbFile } from './ecb-client';
import { previousBusinessDay } from '../../domain/calendar/target-calendar';
import { parseSource, type UpdateCounts } from './update';

/** What one refresh needs from the service. */
export interface RefreshPorts {
  client: EcbClient;
  cache: RatesCache;
  /** Today in Berlin. */
  today: string;
  newest(): string | undefined;
  holds(date: string): boolean;
  /** Validates and stores (serialized with other writes); throws RatesSourceError when refused. */
  apply(pubs: readonly Publication[], source: string, daily: boolean): Promise<UpdateCounts>;
  progress: Progress;
}

/** Further behind than this, the 90-day file (about 62 publications) cannot close the gap. */
const NINETY_DAY_REACH_DAYS = 80;

/**
 * One refresh: the full history on a cold (or very old) cache; otherwise the daily file, plus the
 * 90-day file when the day before the newest is missing (a gap after downtime). Every GET is
 * conditional; a validator is stored only once its body has been stored.
 */
export async function refreshFromEcb(p: RefreshPorts): Promise<ImportReport> {
  const totals = { publications: 0, added: 0, replaced: 0 };
  const urls: string[] = [];

  const fetchFile = async (file: EcbFile, daily: boolean): Promise<void> => {
    const url = p.client.urlOf(file);
    urls.push(url);
    p.progress(`fetching ${url}`);
    const response = await p.client.get(file, (await p.cache.readValidators())[file]);
    if (response.status === 'not-modified') {
      p.progress(`${file}: not modified since the last fetch`);
      return;
    }
    const counts = await p.apply(parseSource(response.bytes, url), url, daily);
    await p.cache.writeValidator(file, response.validator);
    totals.publications += counts.publications;
    totals.added += counts.added;
    totals.replaced += counts.replaced;
    p.progress(`${file}: ${counts.publications} publications, ${counts.added} added, ${counts.replaced} replaced`);
  };

  const newest = p.newest();
  if (newest === undefined || newest < addDays(p.today, -NINETY_DAY_REACH_DAYS)) {
    await fetchFile(ECB_FILES.history, false);
  } else {
    // Only the daily file is checked against the newest held: an older one means a stale copy is served.
    await fetchFile(ECB_FILES.daily, true);
    if (!p.holds(previousBusinessDay(p.newest()!))) await fetchFile(ECB_FILES.ninetyDays, false);
  }
  return { file: urls.join(' '), ...totals, newest: p.newest() ?? null };
}
