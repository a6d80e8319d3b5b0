import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

describe('RATE_SOURCES and the base URL of each source', () => {
  it('fetches every source by default, each from its publisher', () => {
    const { sources } = loadConfig({});
    expect(sources.enabled).toEqual(['boc', 'nb', 'cnb', 'nbp', 'cbr', 'boi', 'imf', 'nbu']);
    expect(sources.baseUrls.nbp).toBe('https://api.nbp.pl/api');
  });

  it.each([
    ['all', ['boc', 'nb', 'cnb', 'nbp', 'cbr', 'boi', 'imf', 'nbu']],
    ['ecb', []],
    ['ecb, nbu ,boc', ['boc', 'nbu']],
  ])('RATE_SOURCES=%s enables %j besides the ECB, in the catalogue order', (value, enabled) => {
    expect(loadConfig({ RATE_SOURCES: value }).sources.enabled).toEqual(enabled);
  });

  it('an unknown id stops the start naming the variable and the ids it takes', () => {
    expect(() => loadConfig({ RATE_SOURCES: 'ecb,fed' })).toThrow(ConfigError);
    expect(() => loadConfig({ RATE_SOURCES: 'ecb,fed' })).toThrow(
      'Invalid configuration: RATE_SOURCES must be all, or a comma list of ecb, boc, nb, cnb, nbp, cbr, boi, imf, nbu ("fed" is not a source) (got "ecb,fed")',
    );
  });

  it('<ID>_BASE_URL points one source elsewhere, without its trailing slash; a bad URL stops the start', () => {
    expect(loadConfig({ CBR_BASE_URL: 'http://127.0.0.1:9/cbr/' }).sources.baseUrls.cbr).toBe('http://127.0.0.1:9/cbr');
    expect(() => loadConfig({ IMF_BASE_URL: 'ftp://x' })).toThrow(/^Invalid configuration: IMF_BASE_URL /);
  });
});
