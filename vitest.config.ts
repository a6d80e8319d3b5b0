import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * Two projects: "fast" (in-process and port-0 tests, seconds) and "slow" (real processes, hostile
 * fuzzing, the real ECB history, the oracles, browsers). `npm run test:unit` runs the fast one while
 * iterating; `npm test` runs both. No test asserts a duration: the timeouts only stop a hung test,
 * and are generous because the machine is shared.
 */
const SLOW = [
  'test/e2e/**/*.test.ts',
  'test/hostile/**/*.test.ts',
  'test/browser/**/*.test.ts',
  'test/**/real-data.test.ts',
  'test/**/*-real-data.test.ts',
  'test/domain/units/oracle.test.ts',
  'test/cli/admin-refresh-failures.test.ts',
  'test/schema/openapi-client-types.test.ts',
  'test/schema/openapi-generated-clients.test.ts',
];

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
    hookTimeout: 180_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: SLOW } },
      { extends: true, test: { name: 'slow', include: SLOW } },
    ],
  },
});
