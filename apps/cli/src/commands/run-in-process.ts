import { tmpdir } from 'node:os';
import { Output } from '../terminal/output.js';
import type { Command } from './command.js';

/** What a command run in the test's own process printed, and its exit code. */
export interface InProcessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs one `sluice` command in the test's process, as `bin/sluice` would run it, with its output
 * captured instead of printed and no environment of the test's own (`env` is all it sees). For
 * commands that need no cluster; those that start one run as child processes (`runSluice`).
 */
export async function runInProcess(command: Command, argv: readonly string[], where: { cwd?: string; rootDir?: string; env?: Record<string, string> } = {}): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const ctx = {
    rootDir: where.rootDir ?? tmpdir(),
    cwd: where.cwd ?? tmpdir(),
    env: where.env ?? {},
    stdout: new Output({ write: (chunk: string) => (stdout += chunk) }, {}),
    stderr: new Output({ write: (chunk: string) => (stderr += chunk) }, {}),
  };
  const code = await command.run(argv, ctx);
  return { code, stdout, stderr };
}
