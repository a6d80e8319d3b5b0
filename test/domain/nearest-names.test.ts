import { describe, expect, it } from 'vitest';
import { CURRENCY_CODES } from '../../src/domain/currency/codes';
import { requireKnownCurrency } from '../../src/domain/currency/request';
import { didYouMean, nearestNames } from '../../src/domain/nearest-names';

const RATES_PARAMETERS = ['date', 'symbols', 'base', 'amount', 'decimals', 'rounding'];

describe('names near an unknown name, by the unit suggestions’ rules', () => {
  it.each([
    ['GPB', [...CURRENCY_CODES], ['GBP']], // two neighbours swapped
    ['gpb', [...CURRENCY_CODES], ['GBP']], // compared without case
    ['USX', [...CURRENCY_CODES], ['USD']],
    ['QQQ', [...CURRENCY_CODES], []],
    ['symbol', RATES_PARAMETERS, ['symbols']],
    ['Symbols', RATES_PARAMETERS, ['symbols']],
    ['decimal', RATES_PARAMETERS, ['decimals']],
    ['rouding', RATES_PARAMETERS, ['rounding']],
    ['x', RATES_PARAMETERS, []],
    ['', RATES_PARAMETERS, []],
    ['s'.repeat(41), ['s'.repeat(40)], []], // longer names are not compared
  ] as const)('%s among %j: %j', (name, candidates, expected) => {
    expect(nearestNames(name, candidates)).toEqual(expected);
  });

  it('gives at most three, nearest first, ties in the candidates’ order', () => {
    expect(nearestNames('ab', ['ab', 'AB', 'abc'])).toEqual(['ab', 'AB']);
    expect(nearestNames('abcd', ['abce', 'abcd', 'abc', 'abcde', 'bacd'])).toEqual(['abcd', 'abce', 'abc']);
  });

  it.each([
    [[], ''],
    [['GBP'], ' (did you mean GBP?)'],
    [['a', 'b', 'c'], ' (did you mean a, b or c?)'],
  ] as const)('%j reads %j', (suggestions, text) => {
    expect(didYouMean(suggestions)).toBe(text);
  });

  it('suggests known currency codes in UNKNOWN_CURRENCY', () => {
    expect(() => requireKnownCurrency('GPB', 'to', new Set())).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_CURRENCY', param: 'to', message: "Currency 'GPB' is not supported (did you mean GBP?)." }),
    );
    expect(() => requireKnownCurrency('XTT', 'to', new Set(['XTS']))).toThrow(
      expect.objectContaining({ message: "Currency 'XTT' is not supported (did you mean XTS?)." }),
    );
    expect(() => requireKnownCurrency('QQQ', 'to', new Set())).toThrow(
      expect.objectContaining({ message: "Currency 'QQQ' is not supported." }),
    );
  });
});
