import { describe, expect, it } from 'vitest';
import { acceptedLanguages, chooseLanguage, closestSupported } from '../../../src/domain/language/choose';
import { SUPPORTED_LANGUAGES } from '../../../src/domain/language/supported';

describe('closestSupported: the same language, its script and region where the supported tag names one', () => {
  it.each([
    ['de', 'de'],
    ['DE', 'de'],
    ['de-CH', 'de'],
    ['de-Latn-AT', 'de'],
    ['fr-CH', 'fr'],
    ['en', 'en'],
    ['en-US', 'en'],
    ['en-GB', 'en-GB'],
    ['en-gb', 'en-GB'],
    ['pt', 'pt'],
    ['pt-BR', 'pt'],
    ['pt-PT', 'pt-PT'],
    ['ja', 'ja'],
    ['ja-JP', 'ja'],
    ['zh', 'zh-Hans'],
    ['zh-CN', 'zh-Hans'],
    ['zh-Hans', 'zh-Hans'],
    ['zh-TW', 'zh-Hant'],
    ['zh-HK', 'zh-Hant'],
    ['zh-Hant-TW', 'zh-Hant'],
    ['zh-Hant', 'zh-Hant'],
    ['iw', 'he'],
    ['nb-NO', 'nb'],
    ['es-419', 'es'],
    ['de-u-co-phonebk', 'de'],
  ])('%s → %s', (tag, expected) => {
    expect(closestSupported(tag)).toBe(expected);
  });

  it.each([
    'xx-invalid',
    'xx',
    'tlh',
    'en_US',
    'de-',
    '-de',
    '',
    ' de',
    'de ',
    '*',
    'de;q=1',
    'a'.repeat(65),
    'en-' + 'x'.repeat(70),
    '12',
    'de-CH-CH',
  ])('%j has no supported language', (tag) => {
    expect(closestSupported(tag)).toBeUndefined();
  });

  it('every supported language is its own closest', () => {
    for (const tag of SUPPORTED_LANGUAGES) expect(closestSupported(tag)).toBe(tag);
  });
});

describe('acceptedLanguages: ranges by weight, equal weights in the order sent, q=0 and bad weights left out', () => {
  it.each([
    ['fr-CH, de;q=0.8', ['fr-CH', 'de']],
    ['de;q=0.8, fr-CH', ['fr-CH', 'de']],
    ['en;q=0.5,ja;q=0.9,*;q=0.1', ['ja', 'en', '*']],
    ['da, en-gb;q=0.8, en;q=0.7', ['da', 'en-gb', 'en']],
    ['de;q=0, fr', ['fr']],
    ['de;q=1.5, fr;q=abc, it;q=0.3', ['it']],
    ['de;Q=0.2, fr ; q = 0.4', ['fr', 'de']],
    ['', []],
    [' , ,', []],
    ['de;q=0.001, en;q=1.000', ['en', 'de']],
    ['de;q=0.0001', []],
  ])('%j → %j', (header, expected) => {
    expect(acceptedLanguages(header)).toEqual(expected);
  });

  it('reads no more than 32 ranges and nothing of a header over 1024 characters', () => {
    expect(acceptedLanguages(Array.from({ length: 40 }, () => 'de').join(','))).toHaveLength(32);
    expect(acceptedLanguages(`de, ${'x'.repeat(1030)}`)).toEqual([]);
  });
});

describe('chooseLanguage: lang, else Accept-Language, else English; never an error', () => {
  it.each([
    [{ lang: 'de' }, { used: 'de', source: 'lang', asked: 'de', exact: true }],
    [{ lang: 'de-CH' }, { used: 'de', source: 'lang', asked: 'de-CH', exact: false }],
    [{ lang: 'zh-Hant-TW' }, { used: 'zh-Hant', source: 'lang', asked: 'zh-Hant-TW', exact: false }],
    [{ lang: 'xx-invalid' }, { used: 'en', source: 'lang', asked: 'xx-invalid', exact: false }],
    [{ lang: 'not a tag' }, { used: 'en', source: 'lang', asked: 'not a tag', exact: false }],
    [{ lang: '' }, { used: 'en', source: 'lang', asked: '', exact: false }],
    [
      { lang: 'ja', header: 'de' },
      { used: 'ja', source: 'lang', asked: 'ja', exact: true },
    ],
    [
      { lang: 'xx', header: 'de' },
      { used: 'en', source: 'lang', asked: 'xx', exact: false },
    ],
    [{ header: 'fr-CH, de;q=0.8' }, { used: 'fr', source: 'accept-language', asked: 'fr-CH', exact: false }],
    [{ header: 'tlh, de;q=0.8' }, { used: 'de', source: 'accept-language', asked: 'de', exact: true }],
    [{ header: 'en-GB,en;q=0.9' }, { used: 'en-GB', source: 'accept-language', asked: 'en-GB', exact: true }],
    [{ header: '*' }, { used: 'en', source: 'default', asked: null, exact: true }],
    [{ header: 'tlh' }, { used: 'en', source: 'default', asked: null, exact: true }],
    [{}, { used: 'en', source: 'default', asked: null, exact: true }],
  ])('%j → %j', ({ lang, header }: { lang?: string; header?: string }, expected) => {
    expect(chooseLanguage(lang, header)).toEqual(expected);
  });
});
