import { metricLabel, type Space, type Trial } from '@sluice/tune';
import { bestTrials } from '@sluice/tune';
import type { TextStream } from '../terminal/output.js';

/** A stream that may know its width (a terminal's `columns`). */
export type ProgressStream = TextStream & { readonly columns?: number };

/** `12.3`, `0.0412`, `1.2e+6`: enough digits to tell trials apart. */
export function formatValue(v: number | null): string {
  if (v === null) return '–';
  if (v !== 0 && (Math.abs(v) >= 1e6 || Math.abs(v) < 1e-3)) return v.toExponential(2);
  return Number(v.toPrecision(4)).toString();
}

/** `3m 05s`, `42 s`. */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/**
 * The search's status line: trials done, the best so far and the time left, e.g.
 * `[######..............] 12/40 trials · best throughput.requestsPerSec 29.8 (#7) · 2 infeasible · 14 s · ETA 33 s`.
 * The ETA is the mean wall time per finished trial × the trials left. On a terminal the line is
 * redrawn in place and cut to its width; elsewhere it is written once per batch.
 */
export class TuneProgress {
  constructor(
    private readonly space: Space,
    private readonly total: number,
    private readonly stream: ProgressStream,
    private readonly elapsedMs: () => number,
  ) {}

  line(trials: readonly Trial[]): string {
    const width = 20;
    const filled = Math.round((trials.length / this.total) * width);
    const best = bestTrials(trials, this.space.objectives.map((o) => o.direction), 1)[0];
    const objective = this.space.objectives[0]!;
    const bestText = best === undefined || !best.feasible ? 'no feasible trial yet' : `best ${metricLabel(objective)} ${formatValue(best.objectives[0] ?? null)} (#${best.number})`;
    const infeasible = trials.filter((t) => !t.feasible).length;
    const elapsed = this.elapsedMs();
    const eta = trials.length === 0 ? '–' : formatDuration((elapsed / trials.length) * (this.total - trials.length));
    return [`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${trials.length}/${this.total} trials`, bestText, `${infeasible} infeasible`, formatDuration(elapsed), `ETA ${eta}`].join(' · ');
  }

  draw(trials: readonly Trial[]): void {
    const text = this.line(trials);
    if (this.stream.isTTY) {
      const columns = this.stream.columns ?? 80;
      this.stream.write(`\r\u001b[2K${text.length > columns - 1 ? `${text.slice(0, columns - 2)}…` : text}`);
    } else {
      this.stream.write(`${text}\n`);
    }
  }

  done(): void {
    if (this.stream.isTTY) this.stream.write('\n');
  }
}
