import { percentile } from '@sluice/metrics';
import type { TextStream } from '../terminal/output.js';
import type { RunRecord } from '@sluice/metrics';

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
    private readonly stream: TextStream,
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

  /** The status line, e.g. `[#####.....] 120/400 sent · 100 ok · rejected 3 (flow_capacity 3) · …`. */
  line(): string {
    const width = 20;
    const filled = this.total === 0 ? width : Math.round((this.sent / this.total) * width);
    const sorted = [...this.ttfts].sort((a, b) => a - b);
    const ms = (v: number | null) => (v === null ? '–' : `${v.toFixed(0)} ms`);
    const rejected = [...this.rejected.values()].reduce((a, b) => a + b, 0);
    const reasons = [...this.rejected].map(([reason, n]) => `${reason} ${n}`).join(', ');
    return [
      `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.sent}/${this.total} sent`,
      `${this.completed} ok`,
      `rejected ${rejected}${reasons ? ` (${reasons})` : ''}`,
      `dropped ${this.dropped}`,
      `failed ${this.failed}`,
      `TTFT p50 ${ms(percentile(sorted, 50))} p99 ${ms(percentile(sorted, 99))}`,
      `${(this.now() / 1000).toFixed(1)} s`,
    ].join(' · ');
  }

  private draw(): void {
    if (this.stream.isTTY) this.stream.write(`\r\u001b[2K${this.line()}`);
    else this.stream.write(`${this.line()}\n`);
  }
}
