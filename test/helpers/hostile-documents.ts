/**
 * Distinct GraphQL documents of `__typename` aliases, each just under the 16 KiB document limit:
 * the largest ASTs a document within the limits can make, and every one new to the server's caches.
 */
export function typenameDocument(index: number, maxBytes = 16 * 1024 - 64): string {
  const fields: string[] = [];
  let length = 2;
  for (let i = 0; ; i++) {
    const field = `d${index}_${i}:__typename`;
    if (length + field.length + 1 > maxBytes) break;
    fields.push(field);
    length += field.length + 1;
  }
  return `{${fields.join(' ')}}`;
}
