import { parseSdmxCsv } from './sdmx-csv';
import type { ParsedFeed } from './types';

const INDEX = 'a Norges Bank krone exchange-rate index, not a currency';

/**
 * Reads Norges Bank's `EXR/B..NOK.SP?format=csvdata`: BASE_CUR units (10^UNIT_MULT of them) cost
 * OBS_VALUE kroner. TWI (trade-weighted) and I44 (import-weighted) are indices in the same series.
 */
export function parseNb(body: Uint8Array): ParsedFeed {
  return parseSdmxCsv(
    {
      source: 'nb',
      base: 'NOK',
      columns: { currency: 'BASE_CUR', quote: 'QUOTE_CUR', unitMult: 'UNIT_MULT', period: 'TIME_PERIOD', value: 'OBS_VALUE' },
      notCurrencies: { TWI: INDEX, I44: INDEX },
    },
    body,
  );
}
