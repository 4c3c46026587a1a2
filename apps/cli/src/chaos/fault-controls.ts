import type { Bus, ControlAnswer } from '@sluice/bus';
import { subjects } from '@sluice/contracts';
import type { FaultControls } from '@sluice/workload';

/**
 * The faults injected by message rather than by signal (the faults' `FaultControls` port), sent
 * on the bus: worker fault knobs (every worker process answers `control.worker.set-faults`) and
 * bus fault rules (every process answers `control.bus.set|clear` for what it sends). A process
 * started again after a kill starts with neither, as a real restart would.
 */
export function busFaultControls(bus: Bus): FaultControls {
  return {
    async workerInstances() {
      const results = accepted(await bus.askAll(subjects.control('worker', 'get-faults'), {}), 'worker');
      return results.flatMap((r) => Object.keys(r as Record<string, unknown>)).sort();
    },
    async setWorkerFaults(request) {
      const results = accepted(await bus.askAll(subjects.control('worker', 'set-faults'), request), 'worker');
      const instances = results.flatMap((r) => Object.keys(r as Record<string, unknown>));
      return `worker knobs ${JSON.stringify(request.faults)} on ${instances.length} instance${instances.length === 1 ? '' : 's'}`;
    },
    async setBusFault(rule) {
      const results = accepted(await bus.askAll(subjects.busFaults('set'), rule), 'process');
      return `bus rule on ${rule.subject} in ${results.length} processes`;
    },
    async clearBusFault(subject) {
      const results = accepted(await bus.askAll(subjects.busFaults('clear'), { subject }), 'process');
      return `bus rule on ${subject} cleared in ${results.length} processes`;
    },
  };
}

/** The results of every process that answered; an error when none did or one refused. */
function accepted(answers: readonly ControlAnswer[], what: string): unknown[] {
  if (answers.length === 0) throw new Error(`no ${what} answered on the bus`);
  const refused = answers.filter((a) => !a.ok);
  if (refused.length > 0) throw new Error(`${what} refused: ${refused.map((a) => a.message).join('; ')}`);
  return answers.map((a) => (a as Extract<ControlAnswer, { ok: true }>).result);
}

/** A scenario without faults injected by message never sends a control message, so it connects to no bus. */
export const noFaultControls: FaultControls = {
  workerInstances: () => Promise.reject(new Error('no bus')),
  setWorkerFaults: () => Promise.reject(new Error('no bus')),
  setBusFault: () => Promise.reject(new Error('no bus')),
  clearBusFault: () => Promise.reject(new Error('no bus')),
};
