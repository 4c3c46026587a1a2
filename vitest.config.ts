import swc from 'unplugin-swc';
import { configDefaults, defineConfig } from 'vitest/config';
import { SHARED_CLUSTER_FILES, TEST_SUFFIXES } from './tools/test-files.mjs';

/**
 * Three suites. unit: pure code, fast. integration: real nats-server and the services as real
 * child processes (built first); its files that only observe a cluster share one, started once
 * (the integration-shared project). containers: NATS in a Docker container via Testcontainers.
 * swc compiles the tests, because Nest's dependency injection needs decorator metadata.
 */
const shared = {
  plugins: [swc.vite({ jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2023' } })],
  resolve: { conditions: ['sluice-source'] },
  ssr: { resolve: { conditions: ['sluice-source'] } },
};

export default defineConfig({
  test: {
    projects: [
      { ...shared, test: { name: 'unit', include: [`{apps,libs,tools}/**/src/**/*.${TEST_SUFFIXES.unit}.ts`, `tools/**/*.${TEST_SUFFIXES.unit}.ts`], testTimeout: 20_000 } },
      {
        ...shared,
        test: {
          name: 'integration',
          include: [`{apps,libs}/**/src/**/*.${TEST_SUFFIXES.integration}.ts`, `tools/**/*.${TEST_SUFFIXES.integration}.ts`],
          exclude: [...configDefaults.exclude, ...SHARED_CLUSTER_FILES],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          // Each file starts its own cluster on its own ports; one at a time on a 2-core machine.
          fileParallelism: false,
        },
      },
      {
        ...shared,
        test: {
          name: 'integration-shared',
          include: [...SHARED_CLUSTER_FILES],
          // One cluster for all of them, started before the first and stopped after the run
          // (libs/testing/src/shared-cluster.ts): a start-up and a stop each file no longer pays.
          globalSetup: ['libs/testing/src/shared-cluster.global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          // One at a time, as the integration files they run among: they send to one gateway.
          fileParallelism: false,
        },
      },
      {
        ...shared,
        // Real-time checks of the model's numbers; run on their own so nothing competes for the CPU.
        test: { name: 'timing', include: [`{apps,libs}/**/src/**/*.${TEST_SUFFIXES.timing}.ts`], testTimeout: 60_000, hookTimeout: 90_000, fileParallelism: false },
      },
      {
        ...shared,
        test: { name: 'containers', include: [`{apps,libs}/**/src/**/*.${TEST_SUFFIXES.containers}.ts`], testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false },
      },
    ],
  },
});
