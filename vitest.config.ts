import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 has no `exports` map: without this, Vite may load index.mjs for the tests while
    // yoga, sofa and Pothos load index.js, and two copies of GraphQLError mask every error to 500.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql/index.js') }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // .ci/run asks for a JSON report too, to print one plain "N passed, N failed" line at the end.
    reporters: process.env.VITEST_JSON_REPORT ? ['default', ['json', { outputFile: process.env.VITEST_JSON_REPORT }]] : ['default'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
