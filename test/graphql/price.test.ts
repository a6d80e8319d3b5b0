import { getNullableType, isListType, isObjectType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { listItemsOf } from '../../src/graphql/field-policy';
import { schema } from '../../src/graphql';
import { documentPrice, VALUES_PER_REQUEST } from '../../src/graphql/price';

const price = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
  documentPrice(schema, parse(query), operationName, variables).requests;
const aliases = (n: number, field: string) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const UNIT_FIELDS = 'id name symbol category aliases exact definition localName { language localized text }';

describe('the price of a document in requests of the rate limit', () => {
  it.each([
    ['one conversion', '{ convert(value: "1", from: "m", to: "ft") { result { value unit } category } }', 1],
    ['the units list once, a few fields of each', '{ units { id name symbol category } }', 1],
    ['the categories and a unit', '{ categories { id name unitCount } unit(id: "ft") { id symbol aliases } }', 2],
    [
      'three conversions',
      '{ a: convert(value: "1", from: "m", to: "ft") { category } b: convertCurrency(value: "1", from: "EUR", to: "USD") { result { value } } c: batch(items: [{value: "1", from: "m", to: "ft"}]) { succeeded } }',
      3,
    ],
    ['__typename alone', '{ __typename }', 1],
    ['every field of every unit', `{ units { ${UNIT_FIELDS} } }`, 3],
    ['every currency, with its successor', '{ currencies { code name status successor { code } } }', 1],
    ['990 aliases of the units list', aliases(990, 'units { id }'), 990],
    ['public fields as much as keyed ones', aliases(10, 'unit(id: "ft") { id }'), 10],
  ])('%s', (_, query, requests) => {
    expect(price(query)).toBe(requests);
  });

  it('counts the fields a fragment selects each time it is spread, and merges fields of one response key', () => {
    const spread = `fragment U on Unit { ${UNIT_FIELDS} } { a: units { ...U } b: units { ...U ...U } }`;
    expect(price(spread)).toBe(price(`{ a: units { ${UNIT_FIELDS} } b: units { ${UNIT_FIELDS} ${UNIT_FIELDS} } }`));
    expect(price('{ units { id } units { name } }')).toBe(1);
  });

  it('leaves out what @skip or @include leaves out, from literals and variables', () => {
    const query = 'query($all: Boolean!) { units { id } more: units @include(if: $all) { id } skipped: units @skip(if: true) { id } }';
    expect(price(query, { all: false })).toBe(1);
    expect(price(query, { all: true })).toBe(2);
    expect(documentPrice(schema, parse(query), undefined, { all: true }).readsVariables).toBe(true);
    expect(documentPrice(schema, parse('{ units @skip(if: false) { id } }'), undefined, {}).readsVariables).toBe(false);
  });

  it("prices a batch's results by the items sent, from a literal or a variable", () => {
    const item = { value: '1', from: 'm', to: 'ft' };
    const query =
      'query($items: [BatchItemInput!]!) { batch(items: $items) { results { __typename ... on BatchSuccess { data { value unit } } } } }';
    expect(price(query, { items: [item] })).toBe(1);
    // The field, its results, and 1,000 items of four values each: 4,002 values.
    expect(price(query, { items: Array.from({ length: 1000 }, () => item) })).toBe(Math.ceil(4002 / VALUES_PER_REQUEST));
  });

  it('prices the operation named, and one that names none at one request', () => {
    const document = 'query A { units { id } } query B { a: units { id } b: units { id } }';
    expect(price(document, undefined, 'B')).toBe(2);
    expect(price(document)).toBe(1);
  });

  it('every list field of the schema declares how many items it answers at most', () => {
    const undeclared: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (isListType(getNullableType(field.type)) && listItemsOf(field) === undefined) undeclared.push(`${type.name}.${field.name}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});
