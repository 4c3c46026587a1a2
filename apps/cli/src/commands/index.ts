import type { CommandEntry } from './command.js';

/** Every subcommand, in the order `sluice help` lists them (and the docs: commands-doc.spec.ts). */
export const COMMANDS: readonly CommandEntry[] = [
  { name: 'up', summary: 'start NATS and all services locally (Ctrl-C to stop)', load: async () => (await import('./up.command.js')).upCommand },
  { name: 'run', summary: 'drive a workload through the gateway as a real client and report what happened', load: async () => (await import('./run.command.js')).runCommand },
  { name: 'simulate', summary: 'run a workload through the discrete-event twin (same policies and engine, virtual time)', load: async () => (await import('./simulate.command.js')).simulateCommand },
  { name: 'experiment', summary: 'run an experiment: a hypothesis, its arms in the twin (and live), and the verdict with its figures', load: async () => (await import('./experiment.command.js')).experimentCommand },
  { name: 'tune', summary: 'search config settings in the twin for the best value of a report metric (TPE, under constraints)', load: async () => (await import('./tune.command.js')).tuneCommand },
  { name: 'compare', summary: 'compare run reports side by side, with deltas against the first', load: async () => (await import('./compare.command.js')).compareCommand },
  { name: 'compare-decisions', summary: 'compare two routing decision traces (live and twin) decision by decision: agreement and regret', load: async () => (await import('./compare-decisions.command.js')).compareDecisionsCommand },
  { name: 'admission', summary: 'show or change the admission policy and its parameters at run time', load: async () => (await import('./admission.command.js')).admissionCommand },
  { name: 'worker', summary: 'show or set worker fault knobs: slow-down, failure injection, hang', load: async () => (await import('./worker.command.js')).workerCommand },
  { name: 'chaos', summary: 'run a chaos scenario: faults on a timeline under load, then check the invariants', load: async () => (await import('./chaos.command.js')).chaosCommand },
  { name: 'credentials', summary: 'write a set of bus credentials (a password per identity, nats.conf) for NATS run by hand or by compose', load: async () => (await import('./credentials.command.js')).credentialsCommand },
  { name: 'bus', summary: 'show, set or clear bus fault rules (delay, drop, duplicate on a subject pattern)', load: async () => (await import('./bus.command.js')).busCommand },
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export type { Command, CommandEntry, CliContext } from './command.js';
export { EXIT } from './command.js';
