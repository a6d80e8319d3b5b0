/**
 * Reads a V8 .heapsnapshot (what `npm run bench -- --only rss --heap-snapshot file` writes) into
 * retained-by-nobody-in-particular totals: self size per node type, and the largest strings with
 * their first characters, which is where this server's heap goes (module sources, GraphiQL's
 * bundle). Self sizes only: no dominator tree, so it says what the heap is made of, not who holds it.
 */

export interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface HeapSummary {
  totalBytes: number;
  byType: { type: string; bytes: number; count: number }[];
  largestStrings: { bytes: number; start: string }[];
}

const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

export function summariseHeap(snap: HeapSnapshot, largest = 10): HeapSummary {
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  if (typeAt < 0 || nameAt < 0 || sizeAt < 0) throw new TypeError('not a V8 heap snapshot: node_fields lacks type, name or self_size');
  const byType = new Map<string, { type: string; bytes: number; count: number }>();
  const strings: { bytes: number; start: string }[] = [];
  let totalBytes = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!] ?? 'unknown';
    const bytes = snap.nodes[i + sizeAt]!;
    totalBytes += bytes;
    const entry = byType.get(type) ?? { type, bytes: 0, count: 0 };
    entry.bytes += bytes;
    entry.count += 1;
    byType.set(type, entry);
    if (STRING_TYPES.has(type)) strings.push({ bytes, start: snap.strings[snap.nodes[i + nameAt]!] ?? '' });
  }
  strings.sort((a, b) => b.bytes - a.bytes);
  return {
    totalBytes,
    byType: [...byType.values()].sort((a, b) => b.bytes - a.bytes),
    largestStrings: strings.slice(0, largest).map((s) => ({ bytes: s.bytes, start: s.start.slice(0, 80).replace(/\s+/g, ' ') })),
  };
}

export function formatHeapSummary(summary: HeapSummary): string {
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
  return [
    `heap: ${mib(summary.totalBytes)} (self sizes of every node)`,
    '',
    '| node type | self size | nodes |',
    '|---|--:|--:|',
    ...summary.byType.map((t) => `| ${t.type} | ${mib(t.bytes)} | ${t.count.toLocaleString('en-US')} |`),
    '',
    '| largest strings | self size |',
    '|---|--:|',
    ...summary.largestStrings.map((s) => `| \`${s.start.replaceAll('`', "'").replaceAll('|', '\\|')}\` | ${mib(s.bytes)} |`),
  ].join('\n');
}
