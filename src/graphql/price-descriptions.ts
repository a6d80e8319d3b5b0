import { getNullableType, isListType, isObjectType, type GraphQLField, type GraphQLSchema } from 'graphql';
import { listItemsOf, type ListItems } from './field-policy';
import { DOCUMENT_BYTES_PER_REQUEST, VALUES_PER_REQUEST } from './price';

const perRequest = VALUES_PER_REQUEST.toLocaleString('en-US');
const bytesPerRequest = DOCUMENT_BYTES_PER_REQUEST.toLocaleString('en-US');

/** What a document's text costs (price.ts: textPrice), said on the query type, where the SDL describes the price list. */
const TEXT_PRICE = `A document's text has a price too, by its length: 1 request per ${bytesPerRequest} bytes (UTF-8), at least 1, spent before it is parsed; the document costs the larger of its text's price and its fields'.`;

const itemsText = (items: ListItems | undefined): string =>
  items === undefined
    ? ''
    : typeof items === 'number'
      ? `${items.toLocaleString('en-US')} items`
      : `one item per item of \`${items.perItemOf}\``;

/**
 * Each field's part of a document's price (price.ts), said where the field is described, from its
 * declarations: every root field's price, and the items each list is counted at. The SDL, GraphiQL
 * and the OpenAPI operations read these descriptions, so the price list is written once, in code;
 * the price of a document's text, which only GraphQL documents have, on the query type.
 */
export function describePrices(schema: GraphQLSchema): void {
  const query = schema.getQueryType();
  if (query) query.description = query.description ? `${query.description} ${TEXT_PRICE}` : TEXT_PRICE;
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const root = type === schema.getQueryType();
    for (const field of Object.values(type.getFields())) {
      const list = isListType(getNullableType(field.type));
      const items = list ? itemsText(listItemsOf(field)) : '';
      if (root)
        append(
          field,
          `GraphQL price: 1 request of the rate limit per ${perRequest} values of its answer, at least 1${items ? ` (the list counted at ${items})` : ''}.`,
        );
      else if (items) append(field, `Counted at ${items} in a GraphQL document's price.`);
    }
  }
}

function append(field: GraphQLField<unknown, unknown>, sentence: string): void {
  field.description = field.description ? `${field.description} ${sentence}` : sentence;
}
