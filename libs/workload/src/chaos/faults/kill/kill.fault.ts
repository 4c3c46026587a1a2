import { z } from 'zod';
import { defineFault } from '../fault-definition.js';
import { AT } from '../fault-fields.js';
import { dockerKill, planWorkerProcessFault, signalProcess } from '../process-faults.js';
import { ProcessTargetSchema } from '../process-target.js';

/** `kill -9`: the process dies at once; `sluice up`'s supervisor restarts it with backoff. */
export const KillFaultSchema = z.strictObject({ ...AT, action: z.literal('kill'), target: ProcessTargetSchema });
export type KillFault = z.output<typeof KillFaultSchema>;

export const killFault = defineFault({
  action: 'kill',
  schema: KillFaultSchema,
  examples: [{ atMs: 8_000, action: 'kill', target: 'worker-1', note: 'mid-stream' }],
  target: (fault) => fault.target,
  local: { run: (fault, { port }) => ({ start: () => signalProcess(port, fault.target, 'SIGKILL') }) },
  // The project's restart policy leaves a container killed by hand down: the target starts it again.
  compose: { run: (fault, { port }) => ({ start: () => dockerKill(port, fault.target) }) },
  // Its instances fall silent; the router's sweep finds them lost and the gateway migrates what they held.
  twin: { plan: (fault, twin) => planWorkerProcessFault('kill', fault.target, twin, (process) => twin.killWorkerProcess(process)) },
});
