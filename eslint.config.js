import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'scratch/', 'test/graphql/generated.ts', 'src/domain/units/catalogue.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config.ts.' }],
    },
  },
  {
    files: ['test/**', 'scripts/**', 'codegen.ts', 'vitest.config.ts', 'src/main.ts'],
    rules: { 'no-restricted-properties': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
);
