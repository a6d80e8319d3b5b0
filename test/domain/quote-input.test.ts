import { describe, expect, it } from 'vitest';
import { MAX_QUOTED_LENGTH, quoteInput, redactMessage, shownInput } from '../../src/domain/quote-input';

const KEY = 'msr_test_4Vq8yZr0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab1C2d3E';

describe('quoteInput: how a message repeats what the caller sent', () => {
  it.each([
    ['furlongs', "'furlongs'"],
    ['', "''"],
    ['x'.repeat(MAX_QUOTED_LENGTH), `'${'x'.repeat(MAX_QUOTED_LENGTH)}'`],
    ['x'.repeat(MAX_QUOTED_LENGTH + 1), `'${'x'.repeat(MAX_QUOTED_LENGTH - 1)}…'`],
    ['é'.repeat(100), `'${'é'.repeat(MAX_QUOTED_LENGTH - 1)}…'`],
    [KEY, "'msr_…'"],
    [`from ${KEY.slice(0, 12)}`, "'msr_…'"],
    ['MSR_LIVE_abc', "'msr_…'"],
  ])('%j is shown as %s', (input, shown) => {
    expect(quoteInput(input)).toBe(shown);
  });

  it('never shows more than the limit, whatever the input', () => {
    for (const input of ['a'.repeat(10_000), '🙂'.repeat(50), `${'y'.repeat(40)}msr_`]) {
      expect(Array.from(shownInput(input)).length).toBeLessThanOrEqual(MAX_QUOTED_LENGTH);
    }
  });
});

describe('redactMessage: the same rule on messages built by libraries', () => {
  it('cuts key-like text anywhere', () => {
    expect(redactMessage(`Variable "$from" got invalid value "${KEY}"; Value "${KEY}" does not exist.`)).toBe(
      'Variable "$from" got invalid value "msr_…"; Value "msr_…" does not exist.',
    );
  });

  it('keeps a bare environment prefix, which holds nothing of a key, and cuts a prefix with anything after it', () => {
    expect(redactMessage('this server accepts only msr_test_ keys; the key sent is a msr_live_ key.')).toBe(
      'this server accepts only msr_test_ keys; the key sent is a msr_live_ key.',
    );
    expect(redactMessage(`sent msr_live_a, ${KEY.slice(0, 20)} and MSR_TEST_`)).toBe('sent msr_…, msr_… and msr_…');
  });

  it('shortens long quoted strings and pairs the quotes of short ones correctly', () => {
    const long = 'z'.repeat(200);
    expect(redactMessage(`Variable "$value" got invalid value 12; A Decimal must be a string such as "12.5", not "${long}".`)).toBe(
      `Variable "$value" got invalid value 12; A Decimal must be a string such as "12.5", not "${'z'.repeat(MAX_QUOTED_LENGTH - 1)}…".`,
    );
  });
});
