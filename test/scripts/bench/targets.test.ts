import { describe, expect, it } from 'vitest';
import { withoutExtensions } from '../../../scripts/bench/targets';

describe('the GraphQL row compares its bodies without their extensions', () => {
  it.each([
    ['{"data":{"a":1},"extensions":{"quota":{"remaining":9}}}', '{"data":{"a":1}}'],
    ['{"data":{"a":1},"extensions":{"quota":{"remaining":8}}}', '{"data":{"a":1}}'],
    ['{"data":{"a":1}}', '{"data":{"a":1}}'],
    ['{"errors":[{"message":"x"}],"data":null,"extensions":{}}', '{"errors":[{"message":"x"}],"data":null}'],
  ])('%s -> %s', (body, steady) => {
    expect(withoutExtensions(body)).toBe(steady);
  });
});
