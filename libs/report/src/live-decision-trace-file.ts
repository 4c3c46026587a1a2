import { closeSync, mkdirSync, openSync, write, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DecisionTraceLine } from '@sluice/contracts';

/** Why a line of a live decision trace was not written. */
export type TraceDropReason = 'backlog' | 'file_full' | 'write_error';

export interface LiveTraceLimits {
  /** Lines waiting for the disk, at most (bytes); past it new lines are dropped, counted. */
  readonly maxPendingBytes: number;
  /** The file's size, at most (bytes); past it the trace stops, counted, and says so once. */
  readonly maxFileBytes: number;
}

export const LIVE_TRACE_LIMITS: LiveTraceLimits = { maxPendingBytes: 8 * 2 ** 20, maxFileBytes: 2 ** 30 };

/**
 * A live router's decision trace (NDJSON, one `DecisionTraceLine` a line, in decision order),
 * written off the event loop: the lines of one turn of the loop go to the disk in one
 * asynchronous write, so a slow disk delays the file, never a routing decision. What a stalled
 * disk leaves waiting is bounded (`maxPendingBytes`), and so is the file (`maxFileBytes`): a line
 * past either is dropped and reported to `onDropped` (the router counts it), never held. At the
 * process's exit what is still waiting is written synchronously, so a router that stops lets no
 * decision go; one killed outright loses at most its last turn's lines.
 */
export class LiveDecisionTraceFile {
  private readonly fd: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  /** Where the next write goes: each write has its place in the file before it starts, so an exit's synchronous write cannot land before one still in flight. */
  private position = 0;
  private writing = false;
  private scheduled = false;
  private closed = false;
  private readonly onExit = () => this.close();

  constructor(
    readonly path: string,
    private readonly onDropped: (reason: TraceDropReason) => void,
    private readonly limits: LiveTraceLimits = LIVE_TRACE_LIMITS,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'w');
    process.once('exit', this.onExit);
  }

  write(line: DecisionTraceLine): void {
    if (this.closed) return;
    const text = `${JSON.stringify(line)}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.position + this.pendingBytes + bytes > this.limits.maxFileBytes) return this.onDropped('file_full');
    if (this.pendingBytes + bytes > this.limits.maxPendingBytes) return this.onDropped('backlog');
    this.pending.push(text);
    this.pendingBytes += bytes;
    if (!this.scheduled && !this.writing) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Everything still waiting, on disk now; the file closed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    process.removeListener('exit', this.onExit);
    // A write in flight completes on its own, in its own place; the rest goes after it.
    if (this.pending.length > 0) writeSync(this.fd, this.pending.join(''), this.position);
    this.pending = [];
    if (!this.writing) closeSync(this.fd);
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed || this.writing || this.pending.length === 0) return;
    const chunk = this.pending.join('');
    const at = this.position;
    this.position += this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    this.writing = true;
    write(this.fd, chunk, at, 'utf8', (error) => {
      this.writing = false;
      // A disk that refuses (full, gone) ends the trace: its lines after this would leave a hole.
      if (error && !this.closed) {
        this.onDropped('write_error');
        this.pending = [];
        this.pendingBytes = 0;
        this.closed = true;
        process.removeListener('exit', this.onExit);
      }
      if (this.closed) return closeSync(this.fd);
      if (this.pending.length > 0) this.flush();
    });
  }
}
