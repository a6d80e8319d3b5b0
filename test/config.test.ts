import { describe, expect, it } from 'vitest';
import { configWarnings, loadConfig } from '../src/config';

describe('REST_EXECUTION chooses how a REST route is executed', () => {
  it('is direct by default, and sofa when asked', () => {
    expect(loadConfig({}).restExecution).toBe('direct');
    expect(loadConfig({ REST_EXECUTION: 'sofa' }).restExecution).toBe('sofa');
    expect(configWarnings({})).toEqual([]);
  });

  it('refuses any other value, naming the variable', () => {
    expect(() => loadConfig({ REST_EXECUTION: 'fast' })).toThrow(/REST_EXECUTION/);
  });

  it.each([
    ['on', 'direct'],
    ['off', 'sofa'],
  ])('reads the former REST_FAST_LANE=%s as %s, with a warning naming REST_EXECUTION', (old, execution) => {
    expect(loadConfig({ REST_FAST_LANE: old }).restExecution).toBe(execution);
    expect(configWarnings({ REST_FAST_LANE: old })).toEqual([
      `REST_FAST_LANE is a former name: set REST_EXECUTION=direct|sofa instead (read as REST_EXECUTION=${execution}).`,
    ]);
  });

  it('lets REST_EXECUTION win over the former name', () => {
    expect(loadConfig({ REST_FAST_LANE: 'off', REST_EXECUTION: 'direct' }).restExecution).toBe('direct');
    expect(configWarnings({ REST_FAST_LANE: 'off', REST_EXECUTION: 'direct' })[0]).toContain('REST_EXECUTION=direct is used instead');
  });
});

describe('GRAPHQL_EXECUTION is no longer read', () => {
  it('starts with a warning to remove it, whatever its value (even one it never took)', () => {
    for (const value of ['direct', 'yoga', 'fast']) {
      expect(() => loadConfig({ GRAPHQL_EXECUTION: value })).not.toThrow();
      expect(configWarnings({ GRAPHQL_EXECUTION: value })).toEqual([
        'GRAPHQL_EXECUTION is no longer read: every GraphQL request is answered by the front and run by its executor; remove it.',
      ]);
    }
    expect(configWarnings({ GRAPHQL_EXECUTION: '' })).toEqual([]);
  });
});

describe('PUBLIC_ORIGIN is the origin signed links are made on', () => {
  it("is an origin (a path, query or fragment refused), OAUTH_ISSUER's when unset, https with API_ENV=production", () => {
    expect(loadConfig({ PUBLIC_ORIGIN: 'https://rates.example/' }).publicOrigin).toBe('https://rates.example');
    expect(loadConfig({ OAUTH_ISSUER: 'https://auth.example' }).publicOrigin).toBe('https://auth.example');
    expect(loadConfig({}).publicOrigin).toBeUndefined();
    expect(() => loadConfig({ PUBLIC_ORIGIN: 'https://rates.example/v1' })).toThrow(/PUBLIC_ORIGIN must be an origin/);
    expect(() => loadConfig({ PUBLIC_ORIGIN: 'http://rates.example', API_ENV: 'production' })).toThrow(
      /PUBLIC_ORIGIN must use https:\/\/ with API_ENV=production/,
    );
  });

  it('unset in production (and no OAUTH_ISSUER): a start-up warning that links have no origin', () => {
    expect(configWarnings({ API_ENV: 'production' })).toEqual([expect.stringMatching(/^PUBLIC_ORIGIN is not set: signed links/)]);
    expect(configWarnings({ API_ENV: 'production', PUBLIC_ORIGIN: 'https://rates.example' })).toEqual([]);
    expect(configWarnings({})).toEqual([]);
  });
});

describe('COMPRESSION turns answer compression on or off', () => {
  it('is on by default, off when asked', () => {
    expect(loadConfig({}).compression).toBe(true);
    expect(loadConfig({ COMPRESSION: 'on' }).compression).toBe(true);
    expect(loadConfig({ COMPRESSION: 'off' }).compression).toBe(false);
  });

  it.each(['gzip', 'false', 'OFF', '0'])('refuses %s at start, naming the variable, its values and what was given', (value) => {
    expect(() => loadConfig({ COMPRESSION: value })).toThrow(
      `Invalid configuration: COMPRESSION invalid option: expected one of "on"|"off" (got "${value}")`,
    );
  });
});

describe('WEBHOOK_ENDPOINTS_PER_ACCOUNT and KEYS_PER_ACCOUNT', () => {
  it('bound an account to 10 endpoints and 100 live keys by default, or what they say', () => {
    expect(loadConfig({}).accountBounds).toEqual({ webhookEndpoints: 10, liveKeys: 100 });
    expect(loadConfig({ WEBHOOK_ENDPOINTS_PER_ACCOUNT: '3', KEYS_PER_ACCOUNT: '250' }).accountBounds).toEqual({
      webhookEndpoints: 3,
      liveKeys: 250,
    });
  });

  it.each([
    ['WEBHOOK_ENDPOINTS_PER_ACCOUNT', '0'],
    ['WEBHOOK_ENDPOINTS_PER_ACCOUNT', '1001'],
    ['KEYS_PER_ACCOUNT', '-1'],
    ['KEYS_PER_ACCOUNT', 'many'],
  ])('refuse %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid configuration: ${name} `));
  });
});

describe('a bad number says what the variable wants, whatever is wrong with it', () => {
  it.each(['abc', '70000', '1.5', '-1'])('PORT=%s', (value) => {
    expect(() => loadConfig({ PORT: value })).toThrow(`Invalid configuration: PORT must be a port number from 0 to 65535 (got "${value}")`);
  });

  it.each([
    ['KEY_RATE_LIMIT', 'x', 'a whole number from 1 to 1000000'],
    ['KEYS_PER_ACCOUNT', 'many', 'a whole number from 1 to 100000'],
  ])('%s=%s: must be %s', (name, value, wanted) => {
    expect(() => loadConfig({ [name]: value })).toThrow(`Invalid configuration: ${name} must be ${wanted} (got "${value}")`);
  });
});
