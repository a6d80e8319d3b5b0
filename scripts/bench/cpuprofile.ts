/**
 * Reads a V8 .cpuprofile (what `npm run bench -- --profile dir` writes) into self and inclusive
 * shares per function and per layer (npm package, node: internal, src/ folder). Pure: tested on
 * hand-built profiles in test/scripts/bench/cpuprofile.test.ts.
 */

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds from the previous sample (from startTime for the first). */
  timeDeltas: number[];
}

export interface Share {
  name: string;
  /** Samples where it is the innermost frame. */
  self: number;
  /** Samples where it is anywhere on the stack, counted once per sample (recursion included). */
  inclusive: number;
}

export interface ProfileSummary {
  /** Samples in the window. */
  samples: number;
  /** Seconds the window covers. */
  seconds: number;
  functions: Share[];
  layers: Share[];
  /** The groups asked for: a sample counts once for a group when any of its layers is on the stack. */
  groups: Share[];
}

/** A group of layers: `@whatwg-node/*` matches every layer starting with `@whatwg-node/`. */
export type Groups = Record<string, readonly string[]>;

/**
 * The layers of this stack, grouped as docs/benchmarks.md discusses them
 * (`npm run bench:profile -- dir --stack-groups`). The groups overlap on a stack (SOFA runs inside
 * the Fetch adapter), so their inclusive shares do not add up.
 */
export const STACK_GROUPS: Groups = {
  'Fetch adaptation (@whatwg-node/*)': ['@whatwg-node/*'],
  'node:http and sockets': ['node:http', 'node:net', 'node:stream', 'node:streams'],
  'undici Request/Response, web streams': ['node:undici', 'node:webstreams'],
  'SOFA routing (plugin-sofa, sofa-api, fets, qs)': ['@graphql-yoga/plugin-sofa', 'sofa-api', 'fets', 'qs'],
  'GraphQL execution (graphql, envelop, executor, Pothos, zod, directive)': [
    'graphql',
    '@graphql-tools/*',
    '@envelop/*',
    '@pothos/*',
    'zod',
    'graphql-rate-limit-directive',
  ],
  'SQLite key lookup + quota upsert (src/data)': ['src/data', 'better-sqlite3'],
  'our edge (src/http)': ['src/http'],
  'services + domain (src/services, src/domain)': ['src/services', 'src/domain'],
  'Yoga core (graphql-yoga)': ['graphql-yoga'],
  GC: ['(garbage collector)'],
};

function inGroup(layer: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('*') ? layer.startsWith(p.slice(0, -1)) : layer === p));
}

const VIRTUAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/**
 * The layer a frame belongs to: the npm package for node_modules (scoped names kept), `node:http`
 * style names for Node's own JavaScript, the first folder under src/ (src/http, src/domain…),
 * V8's virtual frames as they are, and `(native)` for built-ins without a script.
 */
export function layerOf(frame: CpuProfileNode['callFrame']): string {
  if (VIRTUAL.has(frame.functionName) && frame.url === '') return frame.functionName;
  const url = frame.url;
  // The innermost node_modules folder names the package (nested installs included).
  const pkg = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].at(-1);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) {
    // node:internal/http/server -> node:http; node:_http_server -> node:http; node:net -> node:net;
    // node:internal/deps/undici/undici -> node:undici (the Fetch API's implementation)
    const rest = url
      .slice('node:'.length)
      .replace(/^internal\//, '')
      .replace(/^deps\//, '')
      .replace(/^_/, '');
    const first = rest.split(/[/_]/)[0]!;
    return `node:${first}`;
  }
  const src = /\/(src|scripts)\/([^/]+)\//.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  const file = /\/(src|scripts)\/[^/]+$/.exec(url);
  if (file) return file[1]!;
  return url === '' ? '(native)' : url;
}

function functionKey(frame: CpuProfileNode['callFrame']): string {
  if (frame.url === '') return frame.functionName || '(anonymous)';
  const file = frame.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(src|scripts)\//, '$1/');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/**
 * Summarises the samples taken in the last `lastSeconds` of the profile (all when undefined): the
 * bench's child starts, warms up and loads other rows before the one to study, so the window
 * keeps only the measured load of the last row.
 */
export function summarise(profile: CpuProfile, lastSeconds?: number, groupsWanted: Groups = {}): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) times.push((t += delta));
  const end = times.at(-1) ?? profile.endTime;
  const from = lastSeconds === undefined ? -Infinity : end - lastSeconds * 1e6;

  const functions = new Map<string, Share>();
  const layers = new Map<string, Share>();
  const groups = new Map<string, Share>(Object.keys(groupsWanted).map((name) => [name, { name, self: 0, inclusive: 0 }]));
  const groupsOf = (layer: string) => Object.keys(groupsWanted).filter((name) => inGroup(layer, groupsWanted[name]!));
  const bump = (table: Map<string, Share>, name: string, field: 'self' | 'inclusive') => {
    const share = table.get(name) ?? { name, self: 0, inclusive: 0 };
    share[field] += 1;
    table.set(name, share);
  };
  let samples = 0;
  let first = Infinity;
  profile.samples.forEach((id, i) => {
    const time = times[i]!;
    if (time < from) return;
    samples += 1;
    first = Math.min(first, time);
    const leaf = byId.get(id);
    if (!leaf) throw new TypeError(`sample ${i} names node ${id}, which the profile does not hold`);
    bump(functions, functionKey(leaf.callFrame), 'self');
    bump(layers, layerOf(leaf.callFrame), 'self');
    for (const group of groupsOf(layerOf(leaf.callFrame))) bump(groups, group, 'self');
    const seenFunctions = new Set<string>();
    const seenLayers = new Set<string>();
    const seenGroups = new Set<string>();
    for (let node: CpuProfileNode | undefined = leaf; node; node = byId.get(parent.get(node.id) ?? -1)) {
      if (node.callFrame.functionName === '(root)') break;
      const fn = functionKey(node.callFrame);
      const layer = layerOf(node.callFrame);
      if (!seenFunctions.has(fn)) bump(functions, fn, 'inclusive');
      if (!seenLayers.has(layer)) {
        bump(layers, layer, 'inclusive');
        for (const group of groupsOf(layer)) if (!seenGroups.has(group)) bump(groups, group, 'inclusive');
        for (const group of groupsOf(layer)) seenGroups.add(group);
      }
      seenFunctions.add(fn);
      seenLayers.add(layer);
    }
  });
  return {
    samples,
    seconds: samples === 0 ? 0 : (end - first) / 1e6,
    functions: [...functions.values()],
    layers: [...layers.values()],
    groups: [...groups.values()],
  };
}

/** Markdown tables of the top `top` entries by self and by inclusive share. */
export function formatSummary(summary: ProfileSummary, top = 15): string {
  const pct = (n: number) => `${((100 * n) / Math.max(1, summary.samples)).toFixed(1)}%`;
  const table = (title: string, rows: Share[], by: 'self' | 'inclusive') => [
    `${title}, by ${by} share:`,
    '',
    `| ${title} | self | inclusive |`,
    '|---|--:|--:|',
    ...[...rows]
      .sort((a, b) => b[by] - a[by] || a.name.localeCompare(b.name))
      .slice(0, top)
      .map((r) => `| ${r.name.replaceAll('|', '\\|')} | ${pct(r.self)} | ${pct(r.inclusive)} |`),
    '',
  ];
  return [
    `${summary.samples.toLocaleString('en-US')} samples over ${summary.seconds.toFixed(1)} s. self: innermost frame; inclusive: anywhere on the stack, once per sample (the inclusive column does not add up to 100%).`,
    '',
    ...(summary.groups.length > 0 ? table('group', summary.groups, 'inclusive') : []),
    ...table('layer', summary.layers, 'inclusive'),
    ...table('layer', summary.layers, 'self'),
    ...table('function', summary.functions, 'inclusive'),
    ...table('function', summary.functions, 'self'),
  ].join('\n');
}
