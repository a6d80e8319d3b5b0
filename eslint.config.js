import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Layers import one way: domain <- services <- graphql <- http, pages <- app, main, cli.
 * src/data and src/metrics.ts are adapters: they implement the services' ports (AccountStore,
 * RatesService, ServiceMetrics) and only app/main/cli wire them in. config, logger and version are
 * neutral modules any layer but the domain may read. Relative imports only (packages are free);
 * a segment named like a layer anywhere in the path counts. The one folder inside a layer named
 * like another, src/http/graphql, is only reached through a path that names http first, which
 * every layer below http refuses already.
 */
const LAYER_MESSAGE =
  'Imports go one way: domain <- services <- graphql <- http/pages <- app/main/cli; data and metrics are adapters wired by app. See eslint.config.js.';
const forbid = (...names) => ({
  'no-restricted-imports': [
    'error',
    { patterns: [{ regex: `^\\.{1,2}/(?:.*/)?(?:${names.join('|')})(?:\\.[jt]s)?(?:/|$)`, message: LAYER_MESSAGE }] },
  ],
});
const ADAPTERS = ['data', 'metrics'];
const EDGES = ['graphql', 'http', 'pages'];
const TOP = ['app', 'main', 'cli'];
const NEUTRAL = ['config', 'logger', 'version'];
/** Each folder (or root module) and what it must not import. */
export const LAYERS = [
  { files: ['src/domain/**'], rules: forbid('services', ...ADAPTERS, ...EDGES, ...TOP, ...NEUTRAL) },
  { files: ['src/services/**'], rules: forbid(...ADAPTERS, ...EDGES, ...TOP) },
  { files: ['src/data/**'], rules: forbid('metrics', ...EDGES, ...TOP) },
  { files: ['src/metrics.ts'], rules: forbid('data', ...EDGES, ...TOP) },
  { files: ['src/graphql/**'], rules: forbid(...ADAPTERS, 'http', 'pages', ...TOP) },
  { files: ['src/http/**'], rules: forbid('data', 'pages', ...TOP) },
  { files: ['src/pages/**'], rules: forbid('data', ...TOP) },
  { files: ['src/config.ts', 'src/logger.ts', 'src/version.ts'], rules: forbid('services', ...ADAPTERS, ...EDGES, ...TOP) },
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.test-build/',
      'vendor/',
      'data/',
      'scratch/',
      'test/graphql/generated.ts',
      'src/domain/units/catalogue.ts',
      'src/domain/names/cldr-unit-names.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config.ts.' }],
    },
  },
  ...LAYERS,
  {
    files: ['test/**', 'scripts/**', 'codegen.ts', 'vitest.config.ts', 'src/main.ts'],
    rules: { 'no-restricted-properties': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
