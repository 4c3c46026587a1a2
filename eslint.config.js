// Lint, and the module boundaries of docs/architecture.md enforced as rules (CI runs `npm run lint`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import moduleBoundaries, { readProjects } from './tools/module-boundaries.mjs';
import { TEST_FILE_GLOBS } from './tools/test-files.mjs';

/*
 * Which package may import which: tags in each package.json (`"nx": { "tags": [...] }`, where
 * `nx show projects` reads them as well), checked by tools/module-boundaries.mjs, a small rule of
 * our own, rather than by @nx/eslint-plugin's enforce-module-boundaries. That plugin exists only
 * at major 23 while this repo runs nx 24, and mixing Nx majors is unsupported, so it would mean
 * taking nx and its ten platform packages back to 23; and its dependency tree (through @nx/js)
 * comes to 336 packages, 105 of them Babel's, to read the same tags. The constraints keep Nx's
 * depConstraints shape, so moving to the plugin later is a copy.
 *
 * Layers, each allowed to import only those below it: base (wire protocol, shared data
 * structures) ← model (engine, policies, workload, metrics) ← stage (one pure core per service
 * stage) ← sim (the twin); infra (bus, service, telemetry, config, launcher, report) sits beside stage and
 * sim, on base, model and infra. So a pure library (type:pure) never reaches one with I/O (type:io).
 * Apps may import any library; the test library, anything but apps.
 */
const BOUNDARIES = [
  { sourceTag: 'layer:base', onlyDependOnLibsWithTags: ['layer:base'] },
  { sourceTag: 'layer:model', onlyDependOnLibsWithTags: ['layer:base'] },
  { sourceTag: 'layer:stage', onlyDependOnLibsWithTags: ['layer:base', 'layer:model'] },
  { sourceTag: 'layer:sim', onlyDependOnLibsWithTags: ['layer:base', 'layer:model', 'layer:stage'] },
  { sourceTag: 'layer:infra', onlyDependOnLibsWithTags: ['layer:base', 'layer:model', 'layer:infra'] },
  { sourceTag: 'type:test', notDependOnLibsWithTags: ['type:app'] },
  { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:app'] },
];
/** What apps ship never depends on the test library; their tests may. */
const APP_PRODUCTION_BOUNDARIES = [...BOUNDARIES, { sourceTag: 'type:app', notDependOnLibsWithTags: ['type:test'] }];

/**
 * Tests and benchmarks may also set up real parts through the infrastructure and test libraries
 * (load sluice.yaml and a latency profile, start a cluster), wherever the code they test sits;
 * the direction among the pure layers holds for them too, and nothing imports an app.
 */
const TEST_SUPPORT = ['layer:infra', 'type:test'];
const TEST_BOUNDARIES = [
  ...BOUNDARIES.filter((c) => !c.onlyDependOnLibsWithTags),
  ...BOUNDARIES.filter((c) => c.onlyDependOnLibsWithTags).map((c) => ({ ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, ...TEST_SUPPORT] })),
];
const BENCH_FILES = ['**/bench/**/*.mjs'];

const PROJECTS = readProjects(import.meta.dirname);

/** Libraries that must stay pure: no I/O, no framework, no timers (time is injected). */
const PURE_FILES = PROJECTS.filter((p) => p.tags.includes('type:pure')).map((p) => `${p.root.slice(import.meta.dirname.length + 1)}/src/**/*.ts`);
const APP_FILES = PROJECTS.filter((p) => p.tags.includes('type:app')).map((p) => `${p.root.slice(import.meta.dirname.length + 1)}/src/**/*.ts`);

const IO_MODULES = [
  { group: ['@nats-io/*', 'nats'], message: 'pure libraries do not touch NATS: an adapter in apps/ or libs/bus does' },
  { group: ['@nestjs/*'], message: 'pure libraries do not depend on Nest' },
  { group: ['node:http', 'node:https', 'node:net', 'node:fs', 'node:child_process', 'http', 'https', 'net', 'fs', 'child_process'], message: 'pure libraries do no I/O' },
  { group: ['node:timers', 'node:timers/*', 'timers'], message: 'pure libraries take time as an argument (an injected clock)' },
  { group: ['prom-client', '@opentelemetry/*', '@sluice/bus', '@sluice/service', '@sluice/telemetry', '@sluice/testing', '@sluice/config', '@sluice/launcher', '@sluice/report'], message: 'pure libraries do not depend on infrastructure libraries' },
];

/** Every package is reached through its public index, never through another package's files. */
const NO_DEEP_IMPORTS = { group: ['@sluice/*/*', '../../*/src/**', '../../../*/*/src/**', '**/apps/**', '**/libs/**', '!kubernetes-models/**'], message: 'import another package only through its public entry (@sluice/<lib>); apps never import apps' };

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', 'coverage/**', '.sluice/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { sluice: moduleBoundaries },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/require-await': 'off',
      'no-restricted-imports': ['error', { patterns: [NO_DEEP_IMPORTS] }],
      'sluice/module-boundaries': ['error', { constraints: BOUNDARIES }],
    },
  },
  {
    files: APP_FILES,
    ignores: TEST_FILE_GLOBS,
    rules: { 'sluice/module-boundaries': ['error', { constraints: APP_PRODUCTION_BOUNDARIES }] },
  },
  {
    files: [...TEST_FILE_GLOBS, ...BENCH_FILES],
    rules: { 'sluice/module-boundaries': ['error', { constraints: TEST_BOUNDARIES }] },
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
