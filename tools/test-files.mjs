// Which files are tests, in one place: the build leaves them out of dist/, `npm start` ignores them
// when it decides whether a build is stale, vitest picks each suite's files by its suffix, and lint
// relaxes a few rules for them. nx.json cannot import this (JSON), so tools/nx-json.spec.ts checks
// that its `production` input excludes exactly these.
// Plain Node and old syntax: tools/start.mjs imports this before `npm install` and the Node check.

/** Each vitest suite and the suffix that puts a file in it (`name.<suffix>.ts`). */
export const TEST_SUFFIXES = Object.freeze({
  unit: 'spec',
  integration: 'int-spec',
  containers: 'container-spec',
  timing: 'timing-spec',
});

const ALL = Object.values(TEST_SUFFIXES);

/**
 * The integration files that share one cluster instead of starting their own: vitest runs them
 * as the `integration-shared` project, whose global set-up starts the cluster once
 * (libs/testing/src/shared-cluster.ts says which files may share it). Each reads it with
 * sharedCluster(); tools/shared-cluster-files.spec.ts checks that this list and those files agree.
 */
export const SHARED_CLUSTER_FILES = Object.freeze([
  'apps/gateway/src/openai-api.int-spec.ts',
  'apps/worker/src/worker-http.int-spec.ts',
  'apps/cli/src/run/trace.int-spec.ts',
  'apps/cli/src/run/target.int-spec.ts',
]);

// Globs that match every test file anywhere, e.g. `**/*.int-spec.ts`.
export const TEST_FILE_GLOBS = ALL.map((suffix) => `**/*.${suffix}.ts`);

const TEST_FILE = new RegExp(`\\.(${ALL.join('|')})\\.ts$`);

/** True for a path (or file name) of a test file. */
export function isTestFile(path) {
  return TEST_FILE.test(path);
}
