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
    expect(configWarnings({ REST_FAST_LANE: old })).toEqual([`REST_FAST_LANE is a former name: set REST_EXECUTION=direct|sofa instead (read as REST_EXECUTION=${execution}).`]);
  });

  it('lets REST_EXECUTION win over the former name', () => {
    expect(loadConfig({ REST_FAST_LANE: 'off', REST_EXECUTION: 'direct' }).restExecution).toBe('direct');
    expect(configWarnings({ REST_FAST_LANE: 'off', REST_EXECUTION: 'direct' })[0]).toContain('REST_EXECUTION=direct is used instead');
  });
});
