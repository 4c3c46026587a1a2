// Lint, and the module boundaries of ARCHITECTURE.md enforced as rules (CI runs `npm run lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { TEST_FILE_GLOBS } from './tools/test-files.mjs';

/** Libraries that must stay pure: no I/O, no framework, no timers (time is injected). */
const PURE_LIBS = ['contracts', 'collections', 'policies', 'engine', 'workload', 'metrics', 'twin'];
const PURE_FILES = PURE_LIBS.map((lib) => `libs/${lib}/src/**/*.ts`);

const IO_MODULES = [
  { group: ['@nats-io/*', 'nats'], message: 'pure libraries do not touch NATS: an adapter in apps/ or libs/bus does' },
  { group: ['@nestjs/*'], message: 'pure libraries do not depend on Nest' },
  { group: ['node:http', 'node:https', 'node:net', 'node:fs', 'node:child_process', 'http', 'https', 'net', 'fs', 'child_process'], message: 'pure libraries do no I/O' },
  { group: ['node:timers', 'node:timers/*', 'timers'], message: 'pure libraries take time as an argument (an injected clock)' },
  { group: ['prom-client', '@opentelemetry/*', '@sluice/bus', '@sluice/telemetry', '@sluice/testing', '@sluice/config'], message: 'pure libraries do not depend on infrastructure libraries' },
];

/** Every package is reached through its public index, never through another package's files. */
const NO_DEEP_IMPORTS = { group: ['@sluice/*/*', '../../*/src/**', '../../../*/*/src/**', '**/apps/**', '**/libs/**'], message: 'import another package only through its public entry (@sluice/<lib>); apps never import apps' };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/require-await': 'off',
      'no-restricted-imports': ['error', { patterns: [NO_DEEP_IMPORTS] }],
    },
  },
  {
    files: PURE_FILES,
    ignores: TEST_FILE_GLOBS,
    rules: {
      'no-restricted-imports': ['error', { patterns: [NO_DEEP_IMPORTS, ...IO_MODULES] }],
      'no-restricted-globals': [
        'error',
        { name: 'setTimeout', message: 'pure libraries take time as an argument' },
        { name: 'setInterval', message: 'pure libraries take time as an argument' },
        { name: 'setImmediate', message: 'pure libraries take time as an argument' },
        { name: 'fetch', message: 'pure libraries do no I/O' },
        { name: 'process', message: 'pure libraries do not read the environment' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'pure libraries take time as an argument' },
        { object: 'performance', property: 'now', message: 'pure libraries take time as an argument' },
        { object: 'Math', property: 'random', message: 'pure libraries take a seeded random source' },
      ],
    },
  },
  {
    files: TEST_FILE_GLOBS,
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, program: null },
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', fetch: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
  },
);
