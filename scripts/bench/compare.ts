import type { Measurement } from './load';

/** The app row `id` of configuration `config`: plain ids when the run measured one configuration. */
function rowOf(rows: readonly Measurement[], configs: readonly string[], id: string, config: string): Measurement | undefined {
  return rows.find((r) => r.id === (configs.length > 1 ? `${id}@${config}` : id));
}

const times = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(2)}x`);
const over = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined || b <= 0 ? undefined : a / b);

/**
 * The ratios between configurations and between surfaces, from the rows of one run: each
 * configuration's keyed GET /v1/convert against the first configuration's (req/s, and the app's CPU
 * per request, lower is better), POST /graphql convert against REST convert in the same
 * configuration, and the slowest p99 of its app rows against the baseline's p99. Empty when the
 * run has no app row to compare.
 */
export function formatComparison(configs: readonly string[], rows: readonly Measurement[]): string {
  const first = configs[0];
  if (first === undefined) return '';
  const baseline = rows.find((r) => r.kind === 'baseline');
  const firstRest = rowOf(rows, configs, 'rest', first);
  const lines = configs.flatMap((config) => {
    const rest = rowOf(rows, configs, 'rest', config);
    const graphql = rowOf(rows, configs, 'graphql', config);
    // The app as it runs: the graphql-yoga-jit row is an alternative, compared on its own (formatYogaJitComparison).
    const apps = rows.filter(
      (r) => r.kind === 'app' && !r.id.startsWith('graphql-yoga-jit') && (configs.length === 1 || r.id.endsWith(`@${config}`)),
    );
    if (apps.length === 0) return [];
    const worstP99 = Math.max(...apps.map((r) => r.p99Ms));
    return [
      `| ${config} | ${times(over(rest?.requestsPerSecond, firstRest?.requestsPerSecond))} | ${times(over(rest?.serverCpuMicros, firstRest?.serverCpuMicros))} | ` +
        `${times(over(graphql?.requestsPerSecond, rest?.requestsPerSecond))} | ${times(over(graphql?.serverCpuMicros, rest?.serverCpuMicros))} | ` +
        `${times(over(worstP99, baseline?.p99Ms))} | ${apps.reduce((n, r) => n + r.non2xx, 0)} |`,
    ];
  });
  if (lines.length === 0) return '';
  return [
    '',
    `configurations compared (ratios of this run; "vs ${first}" divides by the ${first} row):`,
    '',
    `| configuration | keyed convert req/s vs ${first} | app CPU/req vs ${first} | GraphQL/REST convert req/s | GraphQL/REST app CPU/req | worst app p99 vs baseline p99 | non-2xx |`,
    '|---|--:|--:|--:|--:|--:|--:|',
    ...lines,
    '',
  ].join('\n');
}

/** Yoga on graphql-jit may replace the executor only if its CPU per request is at most this share of the executor's. */
export const YOGA_JIT_WITHIN = 1.1;

/**
 * Each graphql-yoga-jit row against the executor's graphql row of the same configuration and mode
 * (saturating, or the same offered rate: its id with `graphql` for `graphql-yoga-jit`): req/s and
 * the app's CPU per request, and whether that CPU is within 10 % of the executor's. Empty when the
 * run has no such pair.
 */
export function formatYogaJitComparison(rows: readonly Measurement[]): string {
  const lines = rows.flatMap((yoga) => {
    if (!yoga.id.startsWith('graphql-yoga-jit')) return [];
    const executor = rows.find((r) => r.id === yoga.id.replace('graphql-yoga-jit', 'graphql'));
    if (!executor) return [];
    const cpu = over(yoga.serverCpuMicros, executor.serverCpuMicros);
    const verdict = cpu === undefined ? '–' : cpu <= YOGA_JIT_WITHIN ? 'yes' : 'no';
    return [`| ${yoga.label} | ${times(over(yoga.requestsPerSecond, executor.requestsPerSecond))} | ${times(cpu)} | ${verdict} |`];
  });
  if (lines.length === 0) return '';
  return [
    '',
    'Yoga + graphql-jit against the executor (ratios of this run, the same request to the same app; the figure to judge is CPU/req at a fixed --rate):',
    '',
    '| row | req/s vs executor | app CPU/req vs executor | CPU within 10 % |',
    '|---|--:|--:|:-:|',
    ...lines,
    '',
  ].join('\n');
}
