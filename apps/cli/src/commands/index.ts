import { admissionCommand } from './admission.command.js';
import type { Command } from './command.js';
import { compareCommand } from './compare.command.js';
import { runCommand } from './run.command.js';
import { simulateCommand } from './simulate.command.js';
import { upCommand } from './up.command.js';
import { workerCommand } from './worker.command.js';

/** Every subcommand, in the order `sluice help` lists them. Add chaos here. */
export const COMMANDS: readonly Command[] = [upCommand, runCommand, simulateCommand, compareCommand, admissionCommand, workerCommand];

export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}

export type { Command, CliContext } from './command.js';
export { EXIT } from './command.js';
