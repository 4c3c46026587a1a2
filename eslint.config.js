// Lint, and the module boundaries of ARCHITECTURE.md enforced as rules (CI runs `npm run lint`).
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
 * stage) ← sim (the twin); infra (bus, telemetry, config, launcher, report) sits beside stage and
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
 * Imports that break the constraints today, each being removed elsewhere; listed by file and
 * package so that nothing else slips through, and reported as stale once the import is gone.
 */
const KNOWN_VIOLATIONS = [
  { file: 'apps/cli/src/commands/up.command.ts', imports: '@sluice/testing', reason: 'the process launcher moves from libs/testing to libs/launcher' },
  // The twin (pure, layer:sim) loads its config and latency profiles through libs/config (infra)
  // in its tests and benchmark.
  ...['src/twin.properties.spec.ts', 'src/twin.scenarios.spec.ts', 'src/block-ids.spec.ts', 'bench/twin.bench.mjs'].map((file) => ({
    file: `libs/twin/${file}`,
    imports: '@sluice/config',
    reason: 'the twin reads config and latency profiles through the infra library',
  })),
];

const PROJECTS = readProjects(import.meta.dirname);

/** Libraries that must stay pure: no I/O, no framework, no timers (time is injected). */
const PURE_FILES = PROJECTS.filter((p) => p.tags.includes('type:pure')).map((p) => `${p.root.slice(import.meta.dirname.length + 1)}/src/**/*.ts`);
const APP_FILES = PROJECTS.filter((p) => p.tags.includes('type:app')).map((p) => `${p.root.slice(import.meta.dirname.length + 1)}/src/**/*.ts`);

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
    plugins: { sluice: moduleBoundaries },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-extraneous-class': 'off',
      '@typescript-eslint/require-await': 'off',
      'no-restricted-imports': ['error', { patterns: [NO_DEEP_IMPORTS] }],
      'sluice/module-boundaries': ['error', { constraints: BOUNDARIES, knownViolations: KNOWN_VIOLATIONS }],
    },
  },
  {
    files: APP_FILES,
    ignores: TEST_FILE_GLOBS,
    rules: { 'sluice/module-boundaries': ['error', { constraints: APP_PRODUCTION_BOUNDARIES, knownViolations: KNOWN_VIOLATIONS }] },
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
