export type { Publication } from './types';
export { EcbFormatError } from './validate';
export { parseEcbXml } from './parse-xml';
export { parseEcbCsv } from './parse-csv';
export { MAX_INFLATED_BYTES, parseEcbFile } from './parse-file';
export { RateTable, samePublication } from './publications';
export { validateUpdate, type UpdateCheckOptions } from './validate-update';
