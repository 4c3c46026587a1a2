import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { DecisionTraceLineSchema, describeZodError, type DecisionTraceLine } from '@sluice/contracts';
import { forEachLine } from './report-json.js';

/** Twin runs gather lines into writes of about this size: a few syscalls per thousand decisions. */
export const TWIN_FLUSH_BYTES = 64 * 1024;

/**
 * A decision trace being written (NDJSON, one `DecisionTraceLine` a line, in decision order).
 * Writes are synchronous: the twin's run is one synchronous loop, so a stream's asynchronous
 * writes would wait for it to end and hold every line meanwhile; here at most `flushBytes` are
 * held. The live router writes off its event loop instead (`LiveDecisionTraceFile`).
 */
export class DecisionTraceFile {
  private readonly fd: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly flushBytes = TWIN_FLUSH_BYTES,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
  }

  write(line: DecisionTraceLine): void {
    if (this.closed) return;
    const text = `${JSON.stringify(line)}\n`;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= this.flushBytes) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    writeSync(this.fd, this.pending.join(''));
    this.pending = [];
    this.pendingBytes = 0;
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    closeSync(this.fd);
    this.closed = true;
  }
}

/** A line of a decision trace that is not a decision: its file, line number and what is wrong. */
export class DecisionTraceError extends Error {
  override readonly name = 'DecisionTraceError';
}

/**
 * Calls `onLine` with each decision of a trace file, in file order, each validated against the
 * contract (the trace is read at an edge: it may come from another build, or by hand). Blank
 * lines are skipped; anything else that is not a decision throws a `DecisionTraceError`.
 */
export function forEachDecision(file: string, onLine: (line: DecisionTraceLine) => void): void {
  let number = 0;
  forEachLine(file, (text) => {
    number++;
    if (text.trim() === '') return true;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new DecisionTraceError(`${file}:${number}: not JSON (${(error as Error).message})`);
    }
    const parsed = DecisionTraceLineSchema.safeParse(json);
    if (!parsed.success) throw new DecisionTraceError(`${file}:${number}: not a decision: ${describeZodError(parsed.error).join('; ')}`);
    onLine(parsed.data);
    return true;
  });
}
