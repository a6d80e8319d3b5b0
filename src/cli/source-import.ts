import { SourceFileError } from '../data/sources/errors';
import { ApiError } from '../domain/errors';
import { SOURCE_IDS } from '../domain/sources/types';
import type { FeedSourceId, SourceImportReport, SourceRatesService } from '../services/currency/source-rates';

/** What `rates import --source` needs of the CLI's dependencies. */
export interface SourceImportDeps {
  sources?: () => SourceRatesService;
}

/** The `--source` value: undefined for the ECB (absent or `ecb`); throws naming every id when it is none of them. */
export function sourceOptionOf(value: unknown): FeedSourceId | undefined {
  if (value === undefined || value === 'ecb') return undefined;
  if (typeof value === 'string' && (SOURCE_IDS as readonly string[]).includes(value)) return value as FeedSourceId;
  throw new Error(`Unknown source '${String(value)}': --source takes one of ${SOURCE_IDS.join(', ')}.`);
}

/**
 * Imports one response file of a source besides the ECB on a service of its own (a running server
 * notices it by the revision). A malformed file is INVALID_REQUEST with its line and reason, and
 * nothing is written; each skipped row is a progress line and is listed in the result.
 */
export async function importSourceFile(
  deps: SourceImportDeps,
  source: FeedSourceId,
  file: string,
  progress: (message: string) => void,
): Promise<SourceImportReport> {
  if (!deps.sources) throw new Error('The sources service is not available in this CLI build.');
  const sources = deps.sources();
  try {
    progress(`reading ${file} as ${source}`);
    const report = await sources.importFile(source, file);
    for (const row of report.skipped) progress(`skipped line ${row.line}: ${row.reason}`);
    progress(`${report.publications} publications, ${report.added} added, ${report.replaced} replaced`);
    return report;
  } catch (error) {
    if (error instanceof SourceFileError) throw new ApiError('INVALID_REQUEST', error.message);
    throw error;
  } finally {
    await sources.stop();
  }
}
