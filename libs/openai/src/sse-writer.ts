import type { ServerResponse } from 'node:http';

/**
 * The server-sent events of one streamed answer, as OpenAI streams them (`data: <json>\n\n`,
 * closed by `data: [DONE]`), written to the socket at most once per event-loop turn.
 *
 * Why: a socket write is a system call, and the gateway made one per token per stream (and three
 * or four more at the end). Profiled under overload, `writev` was 38% of the gateway's
 * time. Events sent in the same turn (the tokens of one `tokens-batch` frame, an answer's last
 * chunk, usage and `[DONE]`) now leave in one write, flushed when the turn's I/O is done
 * (`setImmediate`): an idle stream waits microseconds, and a gateway that falls behind, and so
 * reads many frames per turn, coalesces more the further behind it is.
 */
export class SseWriter {
  private pending = '';
  /** Body bytes written so far (counted per write, not per event). */
  bytesWritten = 0;

  constructor(private readonly res: ServerResponse) {}

  /** Queues one event: a JSON object, or the text as is (`[DONE]`). */
  send(data: unknown): void {
    if (this.pending === '') pendingWriters.push(this);
    this.pending += `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushAll);
    }
  }

  /** Ends the response with whatever is queued, in the same write. */
  end(): void {
    const text = this.pending;
    this.pending = '';
    if (!this.res.writableEnded && !this.res.destroyed) this.bytesWritten += Buffer.byteLength(text);
    this.res.end(text);
  }

  /** Writes what is queued (nothing once the response ended or the client left). */
  flush(): void {
    const text = this.pending;
    this.pending = '';
    if (text !== '' && !this.res.writableEnded && !this.res.destroyed) {
      this.bytesWritten += Buffer.byteLength(text);
      this.res.write(text);
    }
  }
}

/**
 * How long one turn may spend writing streams before it lets the event loop poll again. Writing
 * is most of what a loaded gateway does (a system call per open stream per turn: ~20,000 a second
 * at twice the default cluster's capacity); done in one go, a turn took up to ~50 ms, and a new
 * connection (a health probe, a client) needs a few turns to be accepted, read and answered, so
 * probes took 100–260 ms (tools/bench/overload.mjs). Writers left over are written in
 * the next turn, after the poll, in the order they queued.
 */
const FLUSH_SLICE_MS = 2;

/** Writers with events queued, flushed in order by immediates, a slice per turn. */
let pendingWriters: SseWriter[] = [];
let flushScheduled = false;

function flushAll(): void {
  const writers = pendingWriters;
  pendingWriters = [];
  flushScheduled = false;
  const until = performance.now() + FLUSH_SLICE_MS;
  for (let i = 0; i < writers.length; i++) {
    writers[i]!.flush();
    if (i % 16 === 15 && performance.now() > until && i + 1 < writers.length) {
      // The rest go first next turn: events queued meanwhile join their writer's text, and new
      // writers queue behind them.
      pendingWriters = writers.slice(i + 1).concat(pendingWriters);
      flushScheduled = true;
      setImmediate(flushAll);
      return;
    }
  }
}
