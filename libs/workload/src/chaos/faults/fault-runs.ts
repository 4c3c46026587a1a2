import { FaultActionError, type AnyFault, type FaultDefinition, type LiveFaultAction, type LiveFaultRun, type TwinPlan, type Unsupported } from './fault-definition.js';
import type { FaultControls, LiveTarget } from './live-ports.js';
import type { TwinFaultPort } from './twin-port.js';

/**
 * The one place that picks a fault's action for where it runs: the local or the compose action on
 * a live target, the twin action in the twin. The callers (the CLI's executor, the twin's plan)
 * never look at which fault it is.
 */

/** Why the target cannot do the fault, or undefined when it can; asked before a run starts. */
export async function whyUnsupported(definition: FaultDefinition, fault: AnyFault, target: LiveTarget): Promise<string | undefined> {
  switch (target.kind) {
    case 'local':
      return whyNot(definition.local, fault, target);
    case 'compose':
      return whyNot(definition.compose, fault, target);
  }
}

/** A run of the fault on the target with its controls; a fault the target cannot do rejects with the reason. */
export function liveRun(definition: FaultDefinition, fault: AnyFault, target: LiveTarget, controls: FaultControls): LiveFaultRun {
  switch (target.kind) {
    case 'local':
      return runOn(definition.local, fault, target, controls);
    case 'compose':
      return runOn(definition.compose, fault, target, controls);
  }
}

/** The fault read against the twin: its run, or why the twin leaves it out. */
export function twinPlan(definition: FaultDefinition, fault: AnyFault, twin: TwinFaultPort): TwinPlan {
  if ('notModelled' in definition.twin) return { target: definition.target(fault), notModelled: definition.twin.notModelled(fault) };
  return definition.twin.plan(fault, twin);
}

function whyNot<P>(action: LiveFaultAction<AnyFault, P> | Unsupported, fault: AnyFault, port: P): Promise<string | undefined> {
  if ('unsupported' in action) return Promise.resolve(action.unsupported);
  return action.whyNot?.(fault, port) ?? Promise.resolve(undefined);
}

function runOn<P>(action: LiveFaultAction<AnyFault, P> | Unsupported, fault: AnyFault, port: P, controls: FaultControls): LiveFaultRun {
  if ('unsupported' in action) {
    const refuse = () => Promise.reject(new FaultActionError(action.unsupported));
    return { start: refuse, undo: refuse };
  }
  return action.run(fault, { port, controls });
}
