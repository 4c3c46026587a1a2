import { inject } from 'vitest';
import type { SharedCluster } from './shared-cluster-settings.js';

export { SHARED_CLUSTER_ARGS, SHARED_GATEWAY_MAX_TOKENS, SHARED_WORKER_HTTP_BASE_PORT, type SharedCluster } from './shared-cluster-settings.js';

/**
 * One local cluster that several integration files share instead of each starting its own: the
 * `integration-shared` project's global set-up starts it once (shared-cluster.global-setup.ts)
 * and every file of that project reads where it is with sharedCluster().
 *
 * A file may share it only if it observes: it sends requests and reads answers, pages and
 * counters as differences from before, never totals, and it kills, pauses, restarts or
 * reconfigures nothing. Whatever asserts on a setting of the cluster (shared-cluster-settings.ts)
 * needs that setting, so a file that wants another one keeps its own cluster.
 * SHARED_CLUSTER_FILES in tools/test-files.mjs lists the sharing files.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    sharedCluster: SharedCluster;
  }
}

/** The shared cluster, as the `integration-shared` project's set-up provided it. */
export function sharedCluster(): SharedCluster {
  const cluster = inject('sharedCluster');
  if (cluster === undefined) {
    throw new Error('no shared cluster: this file reads it, so it belongs to the integration-shared project (SHARED_CLUSTER_FILES in tools/test-files.mjs); run it with --project integration-shared');
  }
  return cluster;
}
