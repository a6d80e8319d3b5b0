import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { plannedConversions, totalConversions } from '../../src/graphql/cost';

const plan = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  plannedConversions(parse(query), operationName, variables);

const C = 'convert(value: "1", from: "m", to: "ft") { category }';
const B = (n: number) => `batch(items: [${Array.from({ length: n }, () => '{value: "1", from: "m", to: "ft"}').join(', ')}]) { succeeded }`;

describe('the conversions a document plans', () => {
  it.each([
    ['no conversion field', '{ categories { id } unit(id: "ft") { id } }', [], 0],
    ['one conversion', `{ ${C} }`, [['convert', 1]], 1],
    [
      'aliased conversions, in document order',
      `{ b: ${C} a: ${C} latestRates { date } c: convertCurrency(value: "1", from: "USD", to: "EUR") { rate { date } } }`,
      [
        ['b', 1],
        ['a', 1],
        ['c', 1],
      ],
      3,
    ],
    ['one response key twice (fields merge into one execution)', `{ ${C} ${C} }`, [['convert', 1]], 1],
    ['a literal batch: one per item', `{ ${B(3)} }`, [['batch', 3]], 3],
    [
      'a single object where a list is expected: one item',
      '{ batch(items: {value: "1", from: "m", to: "ft"}) { succeeded } }',
      [['batch', 1]],
      1,
    ],
    [
      '@skip(if: true) and @include(if: false) leave fields out',
      `{ a: ${C.replace('{', '@skip(if: true) {')} b: ${C.replace('{', '@include(if: false) {')} c: ${C} }`,
      [['c', 1]],
      1,
    ],
    [
      'fields inside inline fragments and fragments count',
      `{ ... on Query { a: ${C} } ...F } fragment F on Query { b: ${B(2)} }`,
      [
        ['a', 1],
        ['b', 2],
      ],
      3,
    ],
    ['conversion fields below the root do not exist (not counted)', '{ category(id: "length") { id } }', [], 0],
  ])('%s', (_, query, expected, total) => {
    const planned = plan(query);
    expect(planned.map((p) => [p.responseKey, p.conversions])).toEqual(expected);
    expect(totalConversions(planned)).toBe(total);
  });

  it('counts a batch of a variable by the length of the list sent, before any coercion', () => {
    const query = 'query($items: [BatchItemInput!]!) { a: batch(items: $items) { succeeded } b: batch(items: $items) { failed } }';
    const items = Array.from({ length: 1000 }, () => ({ value: '1', from: 'm', to: 'ft' }));
    expect(totalConversions(plan(query, { items }))).toBe(2000);
    expect(totalConversions(plan(query, { items: { value: '1', from: 'm', to: 'ft' } }))).toBe(2);
    expect(totalConversions(plan(query, {}))).toBe(0);
  });

  it('honours @skip and @include bound to variables', () => {
    const query = `query($no: Boolean!, $yes: Boolean!) { a: ${C.replace('{', '@skip(if: $yes) {')} b: ${C.replace('{', '@include(if: $no) {')} c: ${C.replace('{', '@include(if: $yes) {')} }`;
    expect(plan(query, { yes: true, no: false }).map((p) => p.responseKey)).toEqual(['c']);
  });

  it('plans the operation named, and nothing for a mutation-less or unknown operation', () => {
    const query = `query A { a: ${C} } query B { b: ${B(4)} }`;
    expect(plan(query, {}, 'B').map((p) => p.responseKey)).toEqual(['b']);
    expect(plan(query, {}, 'C')).toEqual([]);
    expect(plan(query, {})).toEqual([]);
  });

  it('reads each fragment once, so doubled spreads cost linear work and count nothing twice', () => {
    const levels = 30;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
    const query = `{ ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { ${C} }`;
    // 2^30 paths lead to the one convert field: it is found once.
    expect(plan(query)).toEqual([{ responseKey: 'convert', conversions: 1 }]);
  });

  it('survives a fragment cycle (validation reports it; planning must not loop)', () => {
    const query = `{ ...A } fragment A on Query { ...B ${C} } fragment B on Query { ...A }`;
    expect(totalConversions(plan(query))).toBe(1);
  });
});
