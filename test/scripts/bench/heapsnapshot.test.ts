import { describe, expect, it } from 'vitest';
import { formatHeapSummary, summariseHeap, type HeapSnapshot } from '../../../scripts/bench/heapsnapshot';

// Three nodes of the real layout (type, name, id, self_size, edge_count, trace_node_id, detachedness).
const SNAPSHOT: HeapSnapshot = {
  snapshot: {
    meta: {
      node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
      node_types: [['hidden', 'array', 'string', 'object', 'code']],
    },
  },
  // object "Publication" 64 B; string "export const js = …" 3 MiB; string "EUR" 16 B
  nodes: [3, 0, 1, 64, 0, 0, 0, 2, 1, 3, 3 * 2 ** 20, 0, 0, 0, 2, 2, 5, 16, 0, 0, 0],
  strings: ['Publication', 'export const js = "(function(uo,DC){', 'EUR'],
};

describe('heap snapshot summary', () => {
  it('adds self sizes per node type, largest first', () => {
    const s = summariseHeap(SNAPSHOT);
    expect(s.totalBytes).toBe(3 * 2 ** 20 + 80);
    expect(s.byType).toEqual([
      { type: 'string', bytes: 3 * 2 ** 20 + 16, count: 2 },
      { type: 'object', bytes: 64, count: 1 },
    ]);
  });

  it('lists the largest strings with their first characters', () => {
    const s = summariseHeap(SNAPSHOT, 1);
    expect(s.largestStrings).toEqual([{ bytes: 3 * 2 ** 20, start: 'export const js = "(function(uo,DC){' }]);
    expect(formatHeapSummary(s)).toContain('| `export const js = "(function(uo,DC){` | 3.00 MiB |');
  });

  it('refuses a file that is not a V8 heap snapshot', () => {
    expect(() => summariseHeap({ ...SNAPSHOT, snapshot: { meta: { node_fields: ['id'], node_types: [[]] } } })).toThrow(TypeError);
  });
});
