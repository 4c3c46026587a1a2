/** One log line per reason at most this often, carrying the count since the last one. */
export const REFUSAL_LOG_INTERVAL_MS = 10_000;

interface Pending {
  lastLineAtMs: number;
  count: number;
  example: string;
  flush: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Logs what the gateway refuses before a request enters (too many connections, stalled headers,
 * not HTTP…), rate-limited: the first refusal of a reason is logged at once, later ones within the
 * interval are counted and said in one line when it ends, so a flood of ten thousand refused
 * sockets is two lines, not ten thousand, and an operator still learns it happened and how often.
 * The counter (`sluice_gateway_connections_refused_total`) has every one.
 */
export class RefusalLog {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly nowMs: () => number = () => performance.now(),
    private readonly intervalMs = REFUSAL_LOG_INTERVAL_MS,
    private readonly schedule: (run: () => void, ms: number) => ReturnType<typeof setTimeout> = (run, ms) => setTimeout(run, ms).unref(),
  ) {}

  /** One refusal of `reason`; `detail` says what and from whom (the latest one is logged). */
  refused(reason: string, detail: string): void {
    const now = this.nowMs();
    const entry = this.pending.get(reason);
    if (entry === undefined || (entry.count === 0 && now - entry.lastLineAtMs >= this.intervalMs)) {
      this.write(`refused a connection (${reason}): ${detail}`);
      this.pending.set(reason, { lastLineAtMs: now, count: 0, example: detail, flush: undefined });
      return;
    }
    entry.count++;
    entry.example = detail;
    entry.flush ??= this.schedule(() => this.flush(reason), Math.max(0, entry.lastLineAtMs + this.intervalMs - now));
  }

  private flush(reason: string): void {
    const entry = this.pending.get(reason);
    if (entry === undefined || entry.count === 0) return;
    const seconds = Math.round((this.nowMs() - entry.lastLineAtMs) / 1000);
    this.write(`refused ${entry.count} more connection${entry.count === 1 ? '' : 's'} (${reason}) in the last ${seconds} s; the latest: ${entry.example}`);
    entry.lastLineAtMs = this.nowMs();
    entry.count = 0;
    entry.flush = undefined;
  }
}
