/**
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of zip, PNG and gzip.
 * Used as the typo check at the end of API keys; it is not a security measure.
 */
const TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of the bytes, or of the string's UTF-16 code units taken as bytes (callers pass ASCII). */
export function crc32(input: Uint8Array | string): number {
  let crc = 0xffffffff;
  const length = input.length;
  for (let i = 0; i < length; i++) {
    const byte = typeof input === 'string' ? input.charCodeAt(i) & 0xff : input[i]!;
    crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}
