import { z } from 'zod';

/**
 * A process of the cluster: `gateway`, `admission`, `flow-controller`, `router`, or `worker-N`
 * (the N-th worker process, from 0; `worker` = worker-0). Under compose, the service's container.
 * The faults that hit one process (kill, terminate, pause, disconnect) name it so.
 */
export const ProcessTargetSchema = z
  .string()
  .regex(/^(gateway|admission|flow-controller|router|worker(-[0-9]+)?)$/, 'must be gateway, admission, flow-controller, router, worker or worker-N');
export type ProcessTarget = z.infer<typeof ProcessTargetSchema>;

/** The process a target names: `worker` is the first worker process, `worker-0`. */
export function processName(target: string): string {
  return target === 'worker' ? 'worker-0' : target;
}

/** The worker process a target names, or undefined when it names a stage or the gateway. */
export function workerProcessOf(target: string): string | undefined {
  const name = processName(target);
  return name.startsWith('worker-') ? name : undefined;
}
