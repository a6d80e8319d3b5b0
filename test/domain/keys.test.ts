import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32 } from '../../src/domain/crc32';
import { generateApiKey, hashApiKey, keyEnvFor, newId, parseApiKey } from '../../src/domain/keys';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const bytesOf = (byte: number) => () => new Uint8Array(32).fill(byte);
const base62 = (value: bigint, width: number) => {
  let out = '';
  for (let i = 0; i < width; i++, value /= 62n) out = ALPHABET[Number(value % 62n)] + out;
  return out;
};
const withChecksum = (head: string) => head + base62(BigInt(crc32(head)), 6);

describe('crc32', () => {
  it.each([
    ['', 0x00000000],
    ['a', 0xe8b7be43],
    ['123456789', 0xcbf43926],
    ['The quick brown fox jumps over the lazy dog', 0x414fa339],
  ])('crc32(%j) is the IEEE check value', (input, expected) => {
    expect(crc32(input)).toBe(expected);
    expect(crc32(new TextEncoder().encode(input))).toBe(expected);
  });
});

describe('API key format', () => {
  it('is msr_live_ or msr_test_, 43 base62 characters and a 6-character checksum', () => {
    expect(generateApiKey('live')).toMatch(/^msr_live_[0-9A-Za-z]{49}$/);
    expect(generateApiKey('test')).toMatch(/^msr_test_[0-9A-Za-z]{49}$/);
  });

  it('production servers use live keys, every other environment test keys', () => {
    expect(keyEnvFor('production')).toBe('live');
    expect(keyEnvFor('development')).toBe('test');
  });

  it('encodes 32 zero bytes as 43 zeros', () => {
    const key = generateApiKey('test', bytesOf(0x00));
    expect(key.slice(9, 52)).toBe('0'.repeat(43));
    expect(parseApiKey(key)).toEqual({ env: 'test' });
  });

  it('encodes 32 0xff bytes as 2^256 - 1 in big-endian base62', () => {
    const key = generateApiKey('live', bytesOf(0xff));
    expect(key.slice(9, 52)).toBe(base62((1n << 256n) - 1n, 43));
    expect(key.slice(9, 52)).toMatch(/^[1-9A-Za-z]/); // 2^256 - 1 needs all 43 digits
    expect(parseApiKey(key)).toEqual({ env: 'live' });
  });

  it('ends with the base62 CRC-32 of everything before it', () => {
    const key = generateApiKey('test');
    expect(key).toBe(withChecksum(key.slice(0, 52)));
  });

  it('keys are unique', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateApiKey('test')));
    expect(keys.size).toBe(2000);
  });

  it('the hash is 64 lower-case hex characters and does not contain the key', () => {
    const key = generateApiKey('live');
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey('live')));
  });

  it('record ids carry their prefix and 16 base62 characters', () => {
    expect(newId('key')).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(newId('acc')).toMatch(/^acc_[0-9A-Za-z]{16}$/);
  });
});

describe('parseApiKey', () => {
  it('accepts generated keys of both environments', () => {
    expect(parseApiKey(generateApiKey('live'))).toEqual({ env: 'live' });
    expect(parseApiKey(generateApiKey('test'))).toEqual({ env: 'test' });
  });

  it('the checksum detects any single-character change', () => {
    const keyArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).chain((bytes) =>
      fc.record({
        key: fc.constant(generateApiKey('test', () => bytes)),
        position: fc.integer({ min: 0, max: 57 }),
        replacement: fc.constantFrom(...ALPHABET, '_', '-'),
      }),
    );
    fc.assert(
      fc.property(keyArb, ({ key, position, replacement }) => {
        fc.pre(key[position] !== replacement);
        const changed = key.slice(0, position) + replacement + key.slice(position + 1);
        expect(parseApiKey(changed)).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['empty', ''],
    ['one character short', generateApiKey('test').slice(0, -1)],
    ['one character long', `${generateApiKey('test')}0`],
    ['an unknown prefix', generateApiKey('test').replace('msr_test_', 'msr_prod_')],
    ['a non-ASCII character', `${generateApiKey('test').slice(0, 20)}é${generateApiKey('test').slice(21)}`],
    ['a valid checksum over a body of 2^256', withChecksum(`msr_test_${base62(1n << 256n, 43)}`)],
    ['a valid checksum over an unknown prefix', withChecksum(`msr_prod_${'0'.repeat(43)}`)],
    ['a valid checksum over a non-base62 character', withChecksum(`msr_test_${'0'.repeat(42)}_`)],
  ])('refuses %s', (_, token) => {
    expect(parseApiKey(token)).toBeUndefined();
  });
});
