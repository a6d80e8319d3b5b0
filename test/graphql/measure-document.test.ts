import { Kind, parse, visit } from 'graphql';
import { describe, expect, it } from 'vitest';
import { CONVERSION_FIELDS } from '../../src/graphql/limits';
import { measureDocument } from '../../src/graphql/measure-document';
import { fragmentBomb, type BombShape } from './bombs';

const measure = (text: string) => measureDocument(parse(text), CONVERSION_FIELDS);

/** Field, inline fragment and spread nodes of the document's text: the work a linear measure may do. */
function selectionsIn(text: string): number {
  let count = 0;
  const counter = () => void count++;
  visit(parse(text), { [Kind.FIELD]: counter, [Kind.INLINE_FRAGMENT]: counter, [Kind.FRAGMENT_SPREAD]: counter });
  return count;
}

describe('measureDocument: depth, fields and conversions in one pass over the fragment graph', () => {
  it.each<BombShape>(['spreads', 'inline', 'fields'])(
    'visits each selection once on %s doublings of n and 2n levels, whatever they expand to',
    (shape) => {
      const visits = [15, 30, 60].map((levels) => {
        const text = fragmentBomb(levels, shape);
        const result = measure(text);
        expect(result.selectionsVisited).toBe(selectionsIn(text));
        return result.selectionsVisited;
      });
      // Linear: doubling the levels doubles the work (plus the same constant), while the expansion squares.
      expect(visits[2]! - visits[1]!).toBe(2 * (visits[1]! - visits[0]!));
    },
  );

  it('counts the expansion exactly: 2^n fields for n doubled levels, the depth of one level', () => {
    expect(measure(fragmentBomb(30, 'spreads')).operations).toEqual([{ name: undefined, depth: 1, fields: 2 ** 30, conversions: 0 }]);
    expect(measure(fragmentBomb(30, 'inline')).operations[0]!.fields).toBe(2 ** 30);
    // `fields`: level i < n selects two `health { status }` (4 fields) and twice level i+1; level n one field.
    expect(measure(fragmentBomb(3, 'fields')).operations[0]).toMatchObject({ depth: 2, fields: 4 + 2 * (4 + 2 * (4 + 2 * 1)) });
  });

  it('stays finite-or-infinite but never NaN on absurd expansions (600 doubled levels)', () => {
    const { fields } = measure(fragmentBomb(600, 'spreads')).operations[0]!;
    expect(fields).toBeGreaterThan(1e100);
  });

  it('measures a wide fan-out: every spread counts its fragment in full', () => {
    const text = `{ a: unit(id: "m") { ...U } b: unit(id: "m") { ...U } ...on Query { c: unit(id: "m") { ...U } } } fragment U on Unit { id name symbol }`;
    expect(measure(text).operations[0]).toEqual({ name: undefined, depth: 2, fields: 3 + 3 * 3, conversions: 0 });
  });

  it('counts conversion fields at the root only, through root spreads and inline fragments', () => {
    const text = `query Q { convert(value: "1", from: "m", to: "ft") { category } ...C ... on Query { ...C } health { ...N } }
      fragment C on Query { a: convert(value: "1", from: "m", to: "ft") { category } b: batch(items: []) { failed } }
      fragment N on Health { status }`;
    expect(measure(text).operations).toEqual([{ name: 'Q', depth: 2, fields: 1 + 1 + 2 * 4 + 2, conversions: 5 }]);
  });

  it('leaves introspection out of the depth, but not out of the field count', () => {
    const text =
      '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } } health { status } }';
    expect(measure(text).operations[0]).toMatchObject({ depth: 2, fields: 14 });
    const viaFragment =
      '{ __type(name: "Query") { ...T } } fragment T on __Type { fields { type { ofType { ofType { ofType { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } } }';
    expect(measure(viaFragment).operations[0]).toMatchObject({ depth: 0, fields: 12 });
  });

  it('measures each operation of the document', () => {
    const text = 'query A { health { status } } query B { categories { id name } ...F } fragment F on Query { units { id } }';
    expect(measure(text).operations).toEqual([
      { name: 'A', depth: 2, fields: 2, conversions: 0 },
      { name: 'B', depth: 2, fields: 5, conversions: 0 },
    ]);
  });

  it('finds fragment cycles without recursing through them, and leaves unknown fragments to validation', () => {
    expect(
      measure('{ ...A } fragment A on Query { ...B } fragment B on Query { ...C ...A } fragment C on Query { __typename }').cycle,
    ).toEqual(['A', 'B', 'A']);
    expect(measure('{ ...A } fragment A on Query { ...A }').cycle).toEqual(['A', 'A']);
    const unknown = measure('{ ...Missing health { status } }');
    expect(unknown.cycle).toBeUndefined();
    expect(unknown.operations[0]).toMatchObject({ depth: 2, fields: 2 });
  });

  it('handles a chain of 5,000 fragments (far past the 16 KiB limit) without exhausting the stack', () => {
    const chain = Array.from({ length: 5000 }, (_, i) => `fragment F${i} on Query { a { ...F${i + 1} } }`).join(' ');
    const result = measure(`{ ...F0 } ${chain} fragment F5000 on Query { b }`);
    expect(result.operations[0]).toMatchObject({ depth: 5001, fields: 5001 });
    const cycle = measure(
      `{ ...F0 } ${Array.from({ length: 5000 }, (_, i) => `fragment F${i} on Query { ...F${(i + 1) % 5000} }`).join(' ')}`,
    ).cycle;
    expect(cycle).toHaveLength(5001);
  });
});
