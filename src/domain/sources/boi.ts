import { parseSdmxCsv } from './sdmx-csv';
import type { ParsedFeed } from './types';

/**
 * Reads the Bank of Israel's SDMX `EXR` CSV (DATA_TYPE OF00, the representative rates):
 * BASE_CURRENCY units (10^UNIT_MULT of them) cost OBS_VALUE shekels.
 */
export function parseBoi(body: Uint8Array): ParsedFeed {
  return parseSdmxCsv(
    {
      source: 'boi',
      base: 'ILS',
      columns: { currency: 'BASE_CURRENCY', quote: 'COUNTER_CURRENCY', unitMult: 'UNIT_MULT', period: 'TIME_PERIOD', value: 'OBS_VALUE' },
    },
    body,
  );
}
