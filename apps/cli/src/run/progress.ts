import { percentile } from '@sluice/metrics';
import type { TextStream } from '../terminal/output.js';
import type { RunRecord } from '@sluice/metrics';

/** Where the progress goes; a terminal says how wide it is (`process.stderr.columns`), read at each redraw so a resize takes effect. */
export interface ProgressStream extends TextStream {
  readonly columns?: number;
}

const SEPARATOR = ' · ';

/**
 * The parts of a status line joined, cut to `width` columns: a line one column wider than the
 * terminal wraps, and `\r` then rewrites only its second half, so each redraw would leave a line
 * behind. Parts are dropped from the end (the least telling last); a first part wider than the
 * terminal is cut with an ellipsis. Each character counts one column (the line is ASCII but for
 * `·`, `–` and `…`, all one column wide).
 */
export function fitToWidth(parts: readonly string[], width: number): string {
  let line = '';
  for (const part of parts) {
    const next = line === '' ? part : `${line}${SEPARATOR}${part}`;
    if (next.length > width) break;
    line = next;
  }
  if (line !== '' || parts.length === 0) return line;
  const first = parts[0]!;
  return width <= 1 ? first.slice(0, Math.max(0, width)) : `${first.slice(0, width - 1)}…`;
}

/** Live counts of a run, drawn as one rewritten line on a terminal or plain periodic lines elsewhere. */
export class Progress {
  private sent = 0;
  private completed = 0;
  private readonly rejected = new Map<string, number>();
  private dropped = 0;
  private failed = 0;
  private readonly ttfts: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly total: number,
    private readonly stream: ProgressStream,
    private readonly now: () => number,
  ) {}

  start(): void {
    // A terminal gets a bar redrawn 5 times a second; a log file a line every 5 s.
    this.timer = setInterval(() => this.draw(), this.stream.isTTY ? 200 : 5_000);
  }

  onSent(): void {
    this.sent++;
  }

  onRecord(record: RunRecord): void {
    if (record.firstTokenMs !== undefined) this.ttfts.push(record.firstTokenMs - record.arrivalMs);
    if (record.outcome === 'completed') this.completed++;
    else if (record.outcome === 'rejected') this.rejected.set(record.reason ?? 'unspecified', (this.rejected.get(record.reason ?? 'unspecified') ?? 0) + 1);
    else if (record.outcome === 'dropped') this.dropped++;
    else this.failed++;
  }

  stop(): void {
    clearInterval(this.timer);
    this.draw();
    if (this.stream.isTTY) this.stream.write('\n');
  }

  /** The whole status line, e.g. `[#####.....] 120/400 sent · 100 ok · rejected 3 (flow_capacity 3) · …` (what a log file gets). */
  line(): string {
    return this.parts().join(SEPARATOR);
  }

  /**
   * The line as a terminal of `columns` columns shows it: whole if it fits, else compact (no bar,
   * short labels, TTFT next to the counts it explains, no rejection reasons), cut at a part if even
   * that is too wide (fitToWidth). One column is left free: writing the last column moves some terminals' cursor
   * to the next line.
   */
  lineFor(columns: number): string {
    const full = this.line();
    if (full.length < columns) return full;
    return fitToWidth(this.parts(true), columns - 1);
  }

  private parts(compact = false): string[] {
    const width = 20;
    const filled = this.total === 0 ? width : Math.round((this.sent / this.total) * width);
    const sorted = [...this.ttfts].sort((a, b) => a - b);
    const ms = (v: number | null) => (v === null ? '–' : v.toFixed(0));
    const [p50, p99] = [ms(percentile(sorted, 50)), ms(percentile(sorted, 99))];
    const rejected = [...this.rejected.values()].reduce((a, b) => a + b, 0);
    const elapsed = `${(this.now() / 1000).toFixed(1)} s`;
    if (compact) {
      return [`${this.sent}/${this.total} sent`, `${this.completed} ok`, `TTFT ${p50}/${p99} ms`, `${rejected} rej`, `${this.dropped} drop`, `${this.failed} fail`, elapsed];
    }
    const reasons = [...this.rejected].map(([reason, n]) => `${reason} ${n}`).join(', ');
    return [
      `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.sent}/${this.total} sent`,
      `${this.completed} ok`,
      `rejected ${rejected}${reasons ? ` (${reasons})` : ''}`,
      `dropped ${this.dropped}`,
      `failed ${this.failed}`,
      `TTFT p50 ${p50 === '–' ? p50 : `${p50} ms`} p99 ${p99 === '–' ? p99 : `${p99} ms`}`,
      elapsed,
    ];
  }

  private draw(): void {
    // A terminal that does not say its width is taken as the classic 80 columns.
    if (this.stream.isTTY) this.stream.write(`\r\u001b[2K${this.lineFor(this.stream.columns ?? 80)}`);
    else this.stream.write(`${this.line()}\n`);
  }
}
