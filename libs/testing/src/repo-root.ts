import { fileURLToPath } from 'node:url';

/** The repository root, from this file's place in it (libs/testing/src or libs/testing/dist). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Config flags that put every service on a free port, so test clusters never collide. */
export const FREE_PORT_ARGS = ['--gateway.port=0', '--admission.port=0', '--flowController.port=0', '--router.port=0', '--worker.port=0'] as const;
