import { describe, expect, it } from 'vitest';
import { checkSeriesAnswer, withoutExtensions } from '../../../scripts/bench/targets';

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

describe('the series rows hold a ten-year answer to what the ECB published', () => {
  /** A made-up answer of the series route's shape: 2,001 days from 2015-01-02, USD in each. */
  const answer = (change: (entries: { period: string; rates: Record<string, string> }[]) => void = () => undefined) => {
    const entries = Array.from({ length: 2001 }, (_, i) => ({
      period: i === 0 ? '2015-01-02' : `made-up-${i}`,
      rates: { USD: i === 5 ? '1' : '1.0389' },
    }));
    change(entries);
    return { data: { group: 'day', entries } };
  };

  it('accepts a whole answer, the dollar at parity included', () => {
    expect(() => checkSeriesAnswer(answer())).not.toThrow();
  });

  it.each([
    ['a short answer', (e: { period: string }[]) => e.splice(100)],
    ['another first day', (e: { period: string }[]) => void (e[0]!.period = '2015-01-05')],
    ['a day without the dollar', (e: { rates: Record<string, string> }[]) => void delete e[7]!.rates['USD']],
  ])('refuses %s', (_name, change) => {
    expect(() => checkSeriesAnswer(answer(change as never))).toThrow();
  });
});
