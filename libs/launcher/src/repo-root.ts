import { fileURLToPath } from 'node:url';

/** The repository root, from this file's place in it (libs/launcher/src or libs/launcher/dist). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Config flags that put every service on a free port (startLocalCluster picks them), so clusters side by side never collide. */
export const FREE_PORT_ARGS = ['--gateway.port=0', '--admission.port=0', '--flowController.port=0', '--router.port=0', '--worker.port=0', '--autoscaler.port=0'] as const;

/**
 * Config flags that make every stage notice a lost peer in about a second (heartbeats every 250 ms,
 * silent for 1 s is gone), for tests that kill, freeze or cut processes and wait for the cluster
 * to act on it.
 */
export const FAST_DETECTION_ARGS = [
  '--worker.heartbeatIntervalMs=250',
  '--admission.heartbeatIntervalMs=250',
  '--flowController.heartbeatIntervalMs=250',
  '--router.heartbeatIntervalMs=250',
  '--router.heartbeatTimeoutMs=1000',
  '--admission.heartbeatTimeoutMs=1000',
  '--flowController.heartbeatTimeoutMs=1000',
  '--gateway.heartbeatTimeoutMs=1000',
] as const;
