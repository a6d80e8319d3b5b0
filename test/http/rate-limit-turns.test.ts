import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { consumeByTurn } from '../../src/http/limits/rate-limit-turns';

/** What each of `n` requests got: its remaining points, or 'refused'. */
async function outcomes(promises: Promise<RateLimiterRes>[]): Promise<(number | 'refused')[]> {
  return Promise.all(
    promises.map((p) =>
      p.then(
        (res) => res.remainingPoints,
        (rejection: unknown) => {
          expect(rejection).toBeInstanceOf(RateLimiterRes);
          return 'refused' as const;
        },
      ),
    ),
  );
}

describe('rate limits spent once per bucket and turn', () => {
  it('answers each request of a turn as one-by-one consumes would, with one consume per bucket', async () => {
    const limit = 5;
    const grouped = new RateLimiterMemory({ points: limit, duration: 60 });
    let calls = 0;
    const original = grouped.consume.bind(grouped);
    grouped.consume = (key, points) => {
      calls += 1;
      return original(key, points);
    };
    const spend = consumeByTurn(grouped, limit);
    const oneByOne = new RateLimiterMemory({ points: limit, duration: 60 });
    const first = await outcomes([spend('a'), spend('a'), spend('b'), spend('a')]);
    const second = await outcomes([spend('a'), spend('a'), spend('a')]);
    expect(calls).toBe(3);
    const expected: (number | 'refused')[] = [];
    for (const bucket of ['a', 'a', 'b', 'a', 'a', 'a', 'a']) expected.push(...(await outcomes([oneByOne.consume(bucket)])));
    expect([...first, ...second]).toEqual(expected);
    expect(second).toEqual([1, 0, 'refused']);
  });

  it('passes a fault of the limiter to every request of the bucket', async () => {
    const failing = new RateLimiterMemory({ points: 5, duration: 60 });
    failing.consume = () => Promise.reject(new Error('store down'));
    const spend = consumeByTurn(failing, 5);
    await expect(Promise.all([spend('a'), spend('a')])).rejects.toThrow('store down');
  });
});
