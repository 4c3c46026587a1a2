import type { BusFaultRule, SetWorkerFaults } from '@sluice/contracts';

/** The stage processes a scenario can pause in the twin, by their names in a scenario. */
export const PAUSABLE_STAGES = ['admission', 'flow-controller', 'router'] as const;
export type PausableStage = (typeof PAUSABLE_STAGES)[number];

/**
 * What a fault's twin action can read and do in the discrete-event twin (libs/twin implements it
 * in src/chaos/twin-fault-port.ts): the twin's worker processes and instances, the subjects it
 * carries, and its primitive operations. The twin calls them at virtual times on its agenda; each
 * returns at once.
 */
export interface TwinFaultPort {
  /** Its worker processes by scenario name (`worker-0`, …). */
  readonly workerProcesses: readonly string[];
  /** Every instance id, sorted (as the live executor sorts them to pick `instanceCount` of them). */
  readonly instanceIds: readonly string[];
  /** Which of the twin's hops a subject pattern reaches, and which live subjects it names that the twin does not carry. */
  busRuleReach(pattern: string): { readonly hops: readonly string[]; readonly notCarried: readonly string[] };
  /** `kill -9` of a worker process; returns what became of it. */
  killWorkerProcess(name: string): string;
  /** SIGTERM of a worker process (drain, grace, hand back); returns what became of it. */
  terminateWorkerProcess(name: string): string;
  pauseStage(stage: PausableStage): void;
  /** Ends one pause; returns how many messages and wake-ups waited for it. */
  resumeStage(stage: PausableStage): number;
  /** Sets the knobs named on one instance; the others keep their values. */
  setInstanceFaults(instanceId: string, knobs: SetWorkerFaults['faults']): void;
  setBusRule(rule: BusFaultRule): void;
  clearBusRule(subject: string): void;
}
