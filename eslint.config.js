// Import direction is architecture: core is pure; engines and worker sit on
// core; the UI talks to the worker; the CLI drives core and engines.
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const layer = (name, patterns) => ({
  group: patterns,
  message: `${name} must not import this layer (see README: Architecture).`,
});

export default tseslint.config(
  { ignores: ['dist/**', 'lib/**', 'node_modules/**', 'public/**', '.bench/**', '.test-dist/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    files: ['src/core/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('src/core', ['**/engines/**', '**/worker/**', '**/ui/**', '**/cli/**']),
            {
              group: ['node:*', 'fs', 'path', 'os', 'child_process', 'worker_threads', 'crypto'],
              message: 'src/core is pure: no Node built-ins.',
            },
            {
              group: ['@duckdb/*', 'sql.js', 'comlink', 'svelte', 'svelte/*', 'apache-arrow', 'hyparquet'],
              message: 'src/core is pure: no engine, worker or UI libraries.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/engines/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('src/engines', ['**/worker/**', '**/ui/**', '**/cli/**']),
            { group: ['svelte', 'svelte/*'], message: 'engines have no UI.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/worker/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('src/worker', ['**/ui/**', '**/cli/**'])] }] },
  },
  {
    files: ['src/ui/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            layer('src/ui', ['**/engines/**', '**/cli/**']),
            { group: ['node:*'], message: 'the UI runs in the browser.' },
          ],
        },
      ],
      'svelte/no-at-html-tags': 'error',
    },
  },
  {
    files: ['src/cli/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [layer('src/cli', ['**/ui/**', '**/worker/**'])] }] },
  },
);
