/**
 * A Vary field with `names` added, each once (case-insensitively); `*` already varies on
 * everything and stays as it is.
 */
export function mergeVary(vary: string | null | undefined, names: readonly string[]): string {
  if (!vary) return names.join(', ');
  const present = vary
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (present.includes('*')) return '*';
  const seen = new Set(present.map((name) => name.toLowerCase()));
  for (const name of names) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    present.push(name);
  }
  return present.join(', ');
}
