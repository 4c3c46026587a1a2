import { z } from 'zod';
import { defineFault, type TwinPlan } from '../fault-definition.js';
import { AT, PositiveMs } from '../fault-fields.js';
import { shortId, type ComposeFaultPort } from '../live-ports.js';
import { signalProcess } from '../process-faults.js';
import { processName, ProcessTargetSchema } from '../process-target.js';
import { PAUSABLE_STAGES, type PausableStage, type TwinFaultPort } from '../twin-port.js';

/** SIGSTOP for `forMs`, then SIGCONT: a frozen process (a GC pause, a stuck node). Under compose: `docker pause`. */
export const PauseFaultSchema = z.strictObject({ ...AT, action: z.literal('pause'), target: ProcessTargetSchema, forMs: PositiveMs });
export type PauseFault = z.output<typeof PauseFaultSchema>;

export const pauseFault = defineFault({
  action: 'pause',
  schema: PauseFaultSchema,
  examples: [{ atMs: 8_000, action: 'pause', target: 'router', forMs: 1_800 }],
  target: (fault) => fault.target,
  local: {
    run: (fault, { port }) => ({
      start: () => signalProcess(port, fault.target, 'SIGSTOP'),
      undo: () => signalProcess(port, fault.target, 'SIGCONT'),
    }),
  },
  compose: {
    run: (fault, { port }) => ({
      start: () => docker(port, 'pause', fault.target),
      undo: () => docker(port, 'unpause', fault.target),
    }),
  },
  twin: { plan: planPause },
});

async function docker(port: ComposeFaultPort, verb: 'pause' | 'unpause', target: string): Promise<string> {
  const container = await port.container(processName(target));
  await port.docker([verb, container.id]);
  return `docker ${verb} ${shortId(container)}`;
}

/**
 * Only the stage processes have a door the twin can close (its StageGate): what they are sent
 * waits and is handled when the pause ends. The gateway and the workers have none.
 */
function planPause(fault: PauseFault, twin: TwinFaultPort): TwinPlan {
  const stage = PAUSABLE_STAGES.find((s): s is PausableStage => s === fault.target);
  if (stage === undefined) return { target: fault.target, notModelled: `pause of ${fault.target}: only admission, flow-controller and router can be paused in the twin` };
  return {
    target: fault.target,
    run: {
      start: () => {
        twin.pauseStage(stage);
        return `${stage} paused: what it is sent waits`;
      },
      undo: () => `${stage} continued: ${twin.resumeStage(stage)} messages and wake-ups handled`,
    },
  };
}
