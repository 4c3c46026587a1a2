import { fileURLToPath } from 'node:url';

/** The repository root, from this file's place in it (libs/launcher/src or libs/launcher/dist). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Config flags that put every service on a free port (startLocalCluster picks them), so clusters side by side never collide. */
export const FREE_PORT_ARGS = ['--gateway.port=0', '--admission.port=0', '--flowController.port=0', '--router.port=0', '--worker.port=0'] as const;
