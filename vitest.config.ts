import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Three projects. "fast": in-process and port-0 tests, seconds each. "slow": real processes,
 * hostile fuzzing, the real ECB history, the oracles, browsers and linters. Both run side by side,
 * in as many workers as the machine has cores plus one, since a good share of their time is spent
 * waiting on a child process, a socket or an idle timer. "solo": the suites whose assertions are
 * about a server's latency or memory under load (chaos, the stall guard, hostile documents): they
 * run after the others, one file at a time, so no other suite takes the CPU their bounds assume.
 *
 * `npm run test:unit` runs the fast project while iterating; `npm test` runs all three. Tests that
 * share a backend keep apart by themselves (a database of their own, a Redis key prefix or database
 * of their own, port 0). No test asserts a duration of its own: the timeouts only stop a hung test,
 * and are generous because the machine is shared.
 */
const SOLO = [
  'test/e2e/chaos-*.test.ts',
  'test/e2e/hostile-documents.test.ts',
  'test/e2e/graphql-bomb.test.ts',
  'test/e2e/persisted-documents-redis.test.ts',
  'test/hostile/stall-guard.test.ts',
  'test/hostile/stall-guard-sources.test.ts',
  'test/http/series-exports-real-data.test.ts',
  'test/http/series-stream-memory-real-data.test.ts',
];
const SLOW = [
  'test/e2e/**/*.test.ts',
  'test/hostile/**/*.test.ts',
  'test/**/*-browser.test.ts',
  'test/**/real-data.test.ts',
  'test/**/*-real-data.test.ts',
  'test/domain/units/oracle.test.ts',
  'test/cli/**/*.test.ts',
  'test/schema/openapi-lint.test.ts',
  'test/schema/openapi-client-types.test.ts',
  'test/schema/openapi-generated-clients.test.ts',
];
/** Suites that mostly wait (an idle connection of 65 s, idle servers' wake-ups counted over 30 s): started first, so their wait runs beside the rest. */
const WAITING = ['test/e2e/keep-alive.test.ts', 'test/e2e/idle-wakeups.test.ts'];

/**
 * Longest first, by kind rather than by a cache a fresh clone does not have: in each group, the
 * waiting suites, then the slow project (real processes, browsers), then the fast one, each in
 * vitest's own order. Vitest's default runs one project after the other, so a fresh clone would
 * start its 65 s wait only once every fast file had run.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification) =>
      WAITING.some((file) => spec.moduleId.endsWith(file)) ? 0 : spec.project.name === 'fast' ? 2 : 1;
    return ordered
      .map((spec, index) => ({ spec, index }))
      .sort(
        (a, b) =>
          a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder ||
          rank(a.spec) - rank(b.spec) ||
          a.index - b.index,
      )
      .map(({ spec }) => spec);
  }
}

/** Workers for the fast and slow projects together. */
const WORKERS = Math.max(2, availableParallelism() + 1);

export default defineConfig({
  resolve: {
    // graphql 16 has no `exports` map: without this, Vite may load index.mjs for the tests while
    // yoga, sofa and Pothos load index.js, and two copies of GraphQLError mask every error to 500.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql/index.js') }],
  },
  test: {
    // .ci/run asks for a JSON report too, to print one plain "N passed, N failed" line at the end.
    reporters: process.env.VITEST_JSON_REPORT ? ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT }]] : ['default'],
    testTimeout: 180_000,
    // expect.poll waits for what a page or a process will show: on a loaded machine an Argon2 hash
    // and a page render take seconds, so its default is 15 s rather than vitest's 1 s.
    expect: { poll: { timeout: 15_000 } },
    hookTimeout: 180_000,
    pool: 'forks',
    // The bundles the process tests start, built once per run (see the file).
    globalSetup: ['test/setup/built-entries.ts'],
    sequence: { sequencer: LongestFirst },
    maxWorkers: WORKERS,
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...SLOW, ...SOLO], isolate: false, sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'slow', include: SLOW, exclude: SOLO, isolate: false, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'solo', include: SOLO, maxWorkers: 1, isolate: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
