import { describe, expect, it } from 'vitest';
import { layerOf, summarise, type CpuProfile, type CpuProfileNode } from '../../../scripts/bench/cpuprofile';

const frame = (functionName: string, url = '', lineNumber = 0): CpuProfileNode['callFrame'] => ({ functionName, url, lineNumber });
const HANDLE = 'file:///w/node_modules/@whatwg-node/server/esm/adapter.js';
const CONVERT = 'file:///w/src/domain/units/convert.ts';

// (root) → (program) | handle → convert → convert (recursion) | (garbage collector)
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 6] },
    { id: 2, callFrame: frame('(program)') },
    { id: 3, callFrame: frame('handle', HANDLE, 9), children: [4] },
    { id: 4, callFrame: frame('convert', CONVERT, 41), children: [5] },
    { id: 5, callFrame: frame('convert', CONVERT, 41) },
    { id: 6, callFrame: frame('(garbage collector)') },
  ],
  startTime: 0,
  endTime: 6e6,
  // One sample a second: two in the recursive call, one in its caller's convert, then the rest.
  samples: [5, 5, 4, 2, 6, 3],
  timeDeltas: [1e6, 1e6, 1e6, 1e6, 1e6, 1e6],
};

const share = (rows: { name: string; self: number; inclusive: number }[], name: string) => rows.find((r) => r.name === name);

describe('CPU profile summary', () => {
  it('counts a sample as self time of its innermost frame only', () => {
    const s = summarise(PROFILE);
    expect(s.samples).toBe(6);
    expect(share(s.functions, 'convert src/domain/units/convert.ts:42')?.self).toBe(3);
    expect(share(s.functions, 'handle @whatwg-node/server/esm/adapter.js:10')?.self).toBe(1);
    expect(share(s.layers, '(garbage collector)')).toEqual({ name: '(garbage collector)', self: 1, inclusive: 1 });
  });

  it('counts a frame once per sample in inclusive time, however deep the recursion', () => {
    const s = summarise(PROFILE);
    expect(share(s.functions, 'convert src/domain/units/convert.ts:42')?.inclusive).toBe(3);
    expect(share(s.functions, 'handle @whatwg-node/server/esm/adapter.js:10')?.inclusive).toBe(4);
    expect(share(s.layers, '@whatwg-node/server')).toEqual({ name: '@whatwg-node/server', self: 1, inclusive: 4 });
    expect(share(s.layers, 'src/domain')).toEqual({ name: 'src/domain', self: 3, inclusive: 3 });
    expect(share(s.layers, '(root)')).toBeUndefined();
  });

  it('keeps only the samples of the last N seconds when asked', () => {
    const s = summarise(PROFILE, 2);
    expect(s.samples).toBe(3);
    expect(s.seconds).toBe(2);
    expect(share(s.layers, 'src/domain')).toBeUndefined();
    expect(share(s.layers, '@whatwg-node/server')?.self).toBe(1);
  });

  it('refuses a sample that names a node the profile does not hold', () => {
    expect(() => summarise({ ...PROFILE, samples: [99], timeDeltas: [1] })).toThrow(TypeError);
  });
});

describe('layer of a frame', () => {
  it.each([
    ['node:internal/deps/undici/undici', 'node:undici'],
    ['node:_http_server', 'node:http'],
    ['node:internal/http', 'node:http'],
    ['node:net', 'node:net'],
    ['file:///w/node_modules/fets/esm/router.js', 'fets'],
    ['file:///w/node_modules/a/node_modules/@scope/b/x.js', '@scope/b'],
    ['file:///w/src/http/rest.ts', 'src/http'],
    ['file:///w/src/app.ts', 'src'],
    ['', '(native)'],
  ])('%s belongs to %s', (url, layer) => {
    expect(layerOf(frame('f', url))).toBe(layer);
  });
});

describe('groups of layers', () => {
  it('count a sample once for a group however many of its layers are on the stack', () => {
    const s = summarise(PROFILE, undefined, {
      'handler and domain': ['@whatwg-node/*', 'src/domain'],
      memory: ['(garbage collector)'],
      absent: ['fets'],
    });
    expect(s.groups).toEqual([
      { name: 'handler and domain', self: 4, inclusive: 4 },
      { name: 'memory', self: 1, inclusive: 1 },
      { name: 'absent', self: 0, inclusive: 0 },
    ]);
  });
});
