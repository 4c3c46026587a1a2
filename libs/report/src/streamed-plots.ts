import { seededRandom } from '@sluice/collections';
import type { Outcome, RunRecord } from '@sluice/metrics';
import { buildPlots, type PlotSpec } from './plots.js';
import type { StreamedPage } from './render-html.js';
import type { Point } from './series.js';
import { SLOWEST_LISTED } from './slowest-requests.js';

/**
 * The most records a streamed run keeps for its report.html: a uniform sample of the run (reservoir
 * sampling, J. S. Vitter's Algorithm R, "Random Sampling with a Reservoir", ACM TOMS 1985), of only
 * the fields its plots read (~100 bytes a record). A TTFT CDF and a latency cloud drawn from 50 000
 * requests are the run's to the width of a line; the plots keep at most 4 000 points a series anyway.
 */
export const PLOT_SAMPLE_RECORDS = 50_000;

const OUTCOME_ORDER: readonly Outcome[] = ['completed', 'rejected', 'dropped', 'failed', 'in_flight'];

/**
 * report.html's plots of a streamed run, fed a record at a time, in bounded memory: the TTFT CDF
 * and latency over time from the sample; outcomes per second counted exactly (one number a second
 * and outcome); the slowest requests by TTFT and by E2E kept whole, exactly. Load per worker and
 * the flow-control queue are not drawn: a concurrency curve from a sample reads as that share of
 * the load, and the exact one needs every interval.
 */
export class StreamedPlots {
  private readonly sample: RunRecord[] = [];
  private seen = 0;
  private readonly endingPerSecond = new Map<Outcome, number[]>();
  private lastSecond = -1;
  private readonly random: () => number;
  private readonly slowestByTtft = new Slowest((r) => (r.firstTokenMs === undefined ? undefined : r.firstTokenMs - r.arrivalMs));
  private readonly slowestByE2e = new Slowest((r) => (r.outcome === 'completed' && r.endMs !== undefined ? r.endMs - r.arrivalMs : undefined));

  constructor(seed: number, private readonly capacity = PLOT_SAMPLE_RECORDS) {
    this.random = seededRandom(seed);
  }

  add(record: RunRecord): void {
    this.seen++;
    this.slowestByTtft.offer(record, this.seen);
    this.slowestByE2e.offer(record, this.seen);
    const slim = slimRecord(record);
    if (this.sample.length < this.capacity) this.sample.push(slim);
    else {
      const slot = Math.floor(this.random() * this.seen);
      if (slot < this.capacity) this.sample[slot] = slim;
    }
    if (record.endMs === undefined) return;
    const second = Math.max(0, Math.floor(record.endMs / 1000));
    let counts = this.endingPerSecond.get(record.outcome);
    if (counts === undefined) this.endingPerSecond.set(record.outcome, (counts = []));
    counts[second] = (counts[second] ?? 0) + 1;
    if (second > this.lastSecond) this.lastSecond = second;
  }

  /** What report.html draws: the plots, in report order, each note saying what it was drawn from; the slowest requests. */
  page(): StreamedPage {
    const slowest = new Map([...this.slowestByTtft.kept, ...this.slowestByE2e.kept].map((s) => [s.order, s.record]));
    // In the order they passed, as the tables break ties.
    return { plots: this.plots(), slowest: [...slowest.entries()].sort(([a], [b]) => a - b).map(([, record]) => record) };
  }

  private plots(): PlotSpec[] {
    const sampled = this.seen > this.sample.length ? `From a uniform sample of ${this.sample.length.toLocaleString('en-US')} of the run's ${this.seen.toLocaleString('en-US')} requests (a streamed run keeps no records). ` : '';
    const fromSample = buildPlots(this.sample)
      .filter((plot) => plot.name === 'ttft-cdf' || plot.name === 'latency-over-time')
      .map((plot) => ({ ...plot, note: `${sampled}${plot.note}` }));
    return [...fromSample, this.outcomesPlot()];
  }

  /** As `outcomesPerSecond` draws it (every series over the same seconds, closing at 0), counted exactly. */
  private outcomesPlot(): PlotSpec {
    const length = this.lastSecond + 2;
    const series = OUTCOME_ORDER.filter((o) => this.endingPerSecond.has(o)).map((name) => {
      const counts = this.endingPerSecond.get(name)!;
      const points: Point[] = Array.from({ length }, (_, x) => ({ x, y: counts[x] ?? 0 }));
      return { name, points };
    });
    const [plot] = buildPlots([]).filter((p) => p.name === 'outcomes-over-time');
    return { ...plot!, note: `${plot!.note} Counted from every request.`, series };
  }
}

/** The SLOWEST_LISTED records of the highest latency so far; an equal one does not displace an earlier one. */
class Slowest {
  readonly kept: { readonly record: RunRecord; readonly latencyMs: number; readonly order: number }[] = [];

  constructor(private readonly latencyOf: (r: RunRecord) => number | undefined) {}

  offer(record: RunRecord, order: number): void {
    const latencyMs = this.latencyOf(record);
    if (latencyMs === undefined) return;
    const { kept } = this;
    if (kept.length === SLOWEST_LISTED && latencyMs <= kept[kept.length - 1]!.latencyMs) return;
    let at = kept.length;
    while (at > 0 && kept[at - 1]!.latencyMs < latencyMs) at--;
    kept.splice(at, 0, { record, latencyMs, order });
    if (kept.length > SLOWEST_LISTED) kept.pop();
  }
}

/** What the plots read of a record, in a record's shape. */
function slimRecord(r: RunRecord): RunRecord {
  return {
    id: r.id,
    fairnessId: r.fairnessId,
    sloClass: r.sloClass,
    arrivalMs: r.arrivalMs,
    ...(r.firstTokenMs === undefined ? {} : { firstTokenMs: r.firstTokenMs }),
    ...(r.endMs === undefined ? {} : { endMs: r.endMs }),
    outputTokens: r.outputTokens,
    outcome: r.outcome,
    status: r.status,
    priority: r.priority,
    attempts: r.attempts,
  };
}

