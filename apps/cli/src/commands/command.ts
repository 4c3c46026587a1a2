import type { Output } from '../terminal/output.js';

export interface CliContext {
  /** The repo root (apps/, libs/, .sluice/). */
  readonly rootDir: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Output;
  readonly stderr: Output;
}

/** One subcommand: one file under commands/, listed (with its name and summary) in commands/index.ts. */
export interface Command {
  /** Full usage text for `sluice help <name>` and `sluice <name> --help`. */
  readonly usage: string;
  /** Resolves to the process exit code. */
  run(args: readonly string[], ctx: CliContext): Promise<number>;
}

/**
 * A subcommand as `sluice help` lists it; its code is loaded only when it runs, so a command pays
 * for what it uses (`admission get` never loads the twin, the report renderer or the launcher).
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for `sluice help`. */
  readonly summary: string;
  load(): Promise<Command>;
}

/** Exit codes shared by all commands. */
export const EXIT = {
  OK: 0,
  FAILURE: 1,
  /** Bad usage or bad config (same as ConfigError.EXIT_CODE). */
  USAGE: 2,
} as const;
