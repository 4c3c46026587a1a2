import { z } from 'zod';
import { defineFault } from '../fault-definition.js';
import { AT } from '../fault-fields.js';
import { dockerKill, planWorkerProcessFault, signalProcess } from '../process-faults.js';
import { ProcessTargetSchema } from '../process-target.js';

/** SIGTERM: graceful shutdown (drain, hand back, finish), then the supervisor restarts it. */
export const TerminateFaultSchema = z.strictObject({ ...AT, action: z.literal('terminate'), target: ProcessTargetSchema });
export type TerminateFault = z.output<typeof TerminateFaultSchema>;

export const terminateFault = defineFault({
  action: 'terminate',
  schema: TerminateFaultSchema,
  examples: [
    { atMs: 8_000, action: 'terminate', target: 'worker-1' },
    { atMs: 8_000, action: 'terminate', target: 'flow-controller' },
  ],
  target: (fault) => fault.target,
  local: { run: (fault, { port }) => ({ start: () => signalProcess(port, fault.target, 'SIGTERM') }) },
  compose: { run: (fault, { port }) => ({ start: () => dockerKill(port, fault.target, ['--signal', 'TERM']) }) },
  // The worker process drains within worker.shutdownGraceMs and hands back the rest.
  twin: { plan: (fault, twin) => planWorkerProcessFault('terminate', fault.target, twin, (process) => twin.terminateWorkerProcess(process)) },
});
