// Lint: typescript-eslint's recommended rules plus the few that keep this codebase honest.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/.cache/**', '**/.data/**', 'results/**', 'coverage/**', 'test-artifacts/**'],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-extraneous-class': 'off',
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['**/*.spec.ts', '**/e2e/**/*.ts', 'bench/**', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  // Issue #43's size limits: files stay readable in one sitting, functions in one screen. Tests'
  // describe blocks and the console's components are exempt from the function limit, not the file one.
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.mjs', '**/*.cjs'],
    ignores: ['libs/admin-api/src/index.ts'],
    rules: { 'max-lines': ['error', { max: 400 }] },
  },
  {
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts', 'scripts/**/*.mjs', 'bench/**/*.mjs'],
    ignores: ['apps/console/**', '**/*.spec.ts', 'libs/testing/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
