import { z } from 'zod';
import { defineFault, type LiveFaultRun, type TwinPlan } from '../fault-definition.js';
import { AT, PositiveMs } from '../fault-fields.js';
import type { FaultControls } from '../live-ports.js';
import type { TwinFaultPort } from '../twin-port.js';
import { defaultsOf, knobsOf } from './worker-knobs.js';

/**
 * Worker fault knobs (docs/behaviour.md §1): on one instance, on `instanceCount` of them, or on
 * all; reset to defaults after `forMs`. Instance ids are drawn when a worker starts, so a scenario
 * that means "one slow GPU" says `instanceCount: 1` (the first instances by id are taken).
 */
export const WorkerFaultsFaultSchema = z
  .strictObject({
    ...AT,
    action: z.literal('worker-faults'),
    instance: z.string().min(1).optional(),
    instanceCount: z.number().int('must be a whole number').positive('must be > 0').optional(),
    slowdown: z.number().min(0.01).max(1000).optional(),
    failureRate: z.number().min(0).max(1).optional(),
    hang: z.boolean().optional(),
    forMs: PositiveMs.optional(),
  })
  .refine((f) => f.instance === undefined || f.instanceCount === undefined, { message: 'give instance or instanceCount, not both', path: ['instanceCount'] });
export type WorkerFaultsFault = z.output<typeof WorkerFaultsFaultSchema>;

/** Set by control message, alike on a local cluster and under compose. */
const byControlMessage = { run: (fault: WorkerFaultsFault, { controls }: { controls: FaultControls }) => setKnobs(fault, controls) };

export const workerFaultsFault = defineFault({
  action: 'worker-faults',
  schema: WorkerFaultsFaultSchema,
  examples: [
    { atMs: 8_000, action: 'worker-faults', instanceCount: 1, slowdown: 4, forMs: 10_000 },
    { atMs: 8_000, action: 'worker-faults', instance: 'twin-0-r0', failureRate: 0.1, hang: false, note: 'one flaky GPU' },
  ],
  target: (fault) => {
    if (fault.instanceCount !== undefined) return `${fault.instanceCount} worker instance${fault.instanceCount === 1 ? '' : 's'}`;
    return fault.instance ?? 'every worker instance';
  },
  byMessage: true,
  local: byControlMessage,
  compose: byControlMessage,
  twin: { plan: planKnobs },
});

/** The run remembers the instances its start picked (by count: the first ids, sorted, so a rerun picks alike), so its undo resets those. */
function setKnobs(fault: WorkerFaultsFault, controls: FaultControls): LiveFaultRun {
  const knobs = knobsOf(fault);
  let instances: readonly (string | undefined)[] | undefined;
  const apply = async (faults: typeof knobs): Promise<string> => {
    // undefined: every instance.
    instances ??= fault.instanceCount !== undefined ? (await controls.workerInstances()).slice(0, fault.instanceCount) : [fault.instance];
    const done: string[] = [];
    for (const instanceId of instances) done.push(await controls.setWorkerFaults({ ...(instanceId === undefined ? {} : { instanceId }), faults }));
    return done.join('; ');
  };
  return { start: () => apply(knobs), undo: () => apply(defaultsOf(knobs)) };
}

/** In the twin the instance ids are the twin's: a live id matches none of them, so a scenario picks by count. */
function planKnobs(fault: WorkerFaultsFault, twin: TwinFaultPort): TwinPlan {
  const ids = twin.instanceIds;
  if (fault.instance !== undefined && !ids.includes(fault.instance)) {
    return { target: fault.instance, notModelled: `worker-faults on instance ${fault.instance}: the twin has no such instance (its ids are ${ids[0]} … ${ids.at(-1)}; instanceCount picks by count)` };
  }
  const instanceIds = fault.instance !== undefined ? [fault.instance] : fault.instanceCount === undefined ? ids : ids.slice(0, fault.instanceCount);
  const target =
    fault.instance !== undefined ? fault.instance : fault.instanceCount === undefined ? 'every instance' : `${instanceIds.length} instance${instanceIds.length === 1 ? '' : 's'} (${instanceIds.join(', ')})`;
  const set = (knobs: ReturnType<typeof knobsOf>) => {
    for (const id of instanceIds) twin.setInstanceFaults(id, knobs);
    return `knobs ${JSON.stringify(knobs)} on ${target}`;
  };
  // As live: undone, the knobs it set go back to their defaults, the others stay as they are.
  return { target, run: { start: () => set(knobsOf(fault)), undo: () => set(defaultsOf(knobsOf(fault))) } };
}
