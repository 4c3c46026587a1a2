import { once } from 'node:events';
import { createWriteStream, mkdirSync, readFileSync, readdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ChildProcess } from 'node:child_process';

/**
 * Whether a process with this pid runs and may be signalled by this user (signal 0 checks, sends
 * nothing). A zombie (exited, not yet reaped: an orphan whose new parent reaps late, as a
 * container's init may) answers signal 0 too, so on Linux its state in /proc says it is gone.
 */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true; // no /proc (not Linux), or the process just went: signal 0 had it
  }
  // "pid (comm) state …": comm may hold spaces and parentheses, the state follows the last ')'.
  if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z') return true;
  // A zombie leader whose other threads are still exiting (a Go or Node process) still holds its
  // files and ports: it is gone only once it is the last thread left.
  try {
    return readdirSync(`/proc/${pid}/task`).length > 1;
  } catch {
    return false;
  }
}

export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Resolves true when the child has exited, false if it is still running after timeoutMs. */
export async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (!isRunning(child)) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([once(child, 'exit').then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * SIGTERM, then SIGKILL if the child is still there after graceMs. Resolves once it has exited.
 * A child a chaos run froze with SIGSTOP gets SIGCONT too, or it could not act on the SIGTERM.
 */
export async function terminate(child: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!isRunning(child)) return;
  child.kill(signal);
  child.kill('SIGCONT');
  if (await waitForExit(child, graceMs)) return;
  child.kill('SIGKILL');
  await waitForExit(child, 5_000);
}

/** "exit code 1" / "signal SIGKILL". */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `signal ${signal}`;
  return `exit code ${code ?? 'unknown'}`;
}

/**
 * Collects a child's output: each line is appended to a log file, kept in a short tail for error
 * messages and passed to `onLine`.
 */
export class OutputLog {
  private readonly lines: string[] = [];
  private readonly file: WriteStream | undefined;
  private readonly pending: Promise<unknown>[] = [];

  /** Without a path, lines are only kept in the tail and passed to onLine. */
  constructor(
    readonly path: string | undefined,
    private readonly tailSize = 20,
    private readonly onLine?: (line: string) => void,
  ) {
    if (path) {
      mkdirSync(dirname(path), { recursive: true });
      this.file = createWriteStream(path, { flags: 'a' });
      this.file.on('error', () => undefined); // a full disk must not crash the launcher
    }
  }

  /** A line from the launcher itself (not the child), e.g. a start marker; file only. */
  note(line: string): void {
    this.file?.write(`${line}\n`);
  }

  attach(stream: Readable | null): void {
    if (!stream) return;
    const rl = createInterface({ input: stream, crlfDelay: Infinity });
    rl.on('line', (line) => this.push(line));
    this.pending.push(once(rl, 'close').catch(() => undefined));
  }

  private push(line: string): void {
    this.file?.write(`${line}\n`);
    this.lines.push(line);
    if (this.lines.length > this.tailSize) this.lines.shift();
    try {
      this.onLine?.(line);
    } catch {
      // a faulty listener must not break log collection
    }
  }

  tail(): string[] {
    return [...this.lines];
  }

  /** Waits (at most timeoutMs) until the attached streams are drained, so the tail is complete. */
  async settled(timeoutMs = 1_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.pending),
      new Promise((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  close(): Promise<void> {
    const file = this.file;
    return new Promise((resolve) => {
      if (!file || file.closed || file.destroyed) return resolve();
      file.end(() => resolve());
    });
  }
}

export function formatTail(lines: readonly string[], indent = '    '): string {
  if (lines.length === 0) return `${indent}(no output)`;
  return lines.map((l) => `${indent}${l}`).join('\n');
}
