import { GoodputTally } from './goodput.js';
import { CacheHitTally } from './cache-hits.js';
import { ConservationTally, checkConservation } from './conservation.js';
import { fitness } from './fitness.js';
import { jainIndex } from './jain.js';
import type { ReportOptions, RunReport } from './report.js';
import { requestTpotMs } from './samples.js';
import { SampleStore } from './sample-store.js';
import type { Summary } from './summary.js';
import { throughputOf, type RunWindow } from './throughput.js';
import type { RequestRecord } from './types.js';
import { ValueCounts } from './value-counts.js';

/**
 * `buildReport`, built one record at a time: a streamed twin run hands each record over as it
 * settles and keeps none, so its report is counted as the records pass. Counts and sums are
 * exact; each request's TTFT, TPOT and E2E is kept (8 bytes a value, per group) and the pooled
 * inter-token gaps are counted by value (ValueCounts), so the percentiles are those of the kept
 * report, by the same interpolation. For the same records in any order the report is the same,
 * field for field (streamed-report.spec.ts; the twin's in apps/cli's twin-report spec).
 */
export class StreamedReport {
  private readonly overall = new GroupTally();
  private readonly bySloClass = new Map<string, GroupTally>();
  private readonly byFairnessId = new Map<string, GroupTally>();
  private readonly conservation = new ConservationTally();
  private startMs = Infinity;
  private endMs = -Infinity;
  private done = false;

  /** `expectedRequests` is given to `report`: a streamed workload's count is known at its end. */
  constructor(private readonly options: Omit<ReportOptions, 'expectedRequests'> = {}) {}

  add(record: RequestRecord): void {
    if (this.done) throw new Error('a StreamedReport takes no records after its report');
    if (record.arrivalMs < this.startMs) this.startMs = record.arrivalMs;
    if (record.outcome === 'completed' && record.endMs !== undefined && record.endMs > this.endMs) this.endMs = record.endMs;
    this.overall.add(record);
    groupOf(this.bySloClass, record.sloClass).add(record);
    groupOf(this.byFairnessId, record.fairnessId).add(record);
    this.conservation.add(record);
  }

  /**
   * The report of every record added; once (the stores are summarized in place). `expectedRequests`
   * is required: the books cannot count distinct ids without keeping them.
   */
  report(expectedRequests: number): RunReport {
    this.done = true;
    const window = this.window();
    const overall = this.overall.summary(window);
    const byFairnessId = summariesOf(this.byFairnessId, window);
    const outputTokensByFairnessId = Object.fromEntries(Object.entries(byFairnessId).map(([t, s]) => [t, s.outputTokens]));
    const books = this.conservation.books(expectedRequests);
    return {
      window,
      overall,
      bySloClass: summariesOf(this.bySloClass, window),
      byFairnessId,
      throughput: overall.throughput,
      goodput: overall.goodput,
      jain: { index: jainIndex(Object.values(outputTokensByFairnessId)), outputTokensByFairnessId },
      conservation: { books, check: checkConservation(books) },
      fitness: this.options.fitnessWeights ? fitness(overall, this.options.fitnessWeights) : null,
    };
  }

  /** As `runWindow`: first arrival to last completion, empty without records or completions. */
  private window(): RunWindow {
    if (this.overall.requests === 0) return { startMs: 0, endMs: 0, durationMs: 0 };
    const { startMs, endMs } = this;
    if (endMs === -Infinity) return { startMs, endMs: startMs, durationMs: 0 };
    return { startMs, endMs, durationMs: Math.max(0, endMs - startMs) };
  }
}

/** What `summarizeRecords` reads of one group's records, counted as they pass. */
class GroupTally {
  requests = 0;
  private completed = 0;
  private outputTokens = 0;
  private readonly ttft = new SampleStore();
  private readonly itl = new ValueCounts();
  private readonly tpot = new SampleStore();
  private readonly e2e = new SampleStore();
  private readonly goodput = new GoodputTally();
  private readonly cache = new CacheHitTally();

  add(r: RequestRecord): void {
    this.requests++;
    if (r.firstTokenMs !== undefined) this.ttft.add(r.firstTokenMs - r.arrivalMs);
    const gaps = addGaps(this.itl, r);
    this.goodput.add(r);
    this.cache.add(r);
    if (r.outcome !== 'completed') return;
    this.completed++;
    this.outputTokens += r.outputTokens;
    if (gaps > 0) this.tpot.add(requestTpotMs(r));
    if (r.endMs !== undefined) this.e2e.add(r.endMs - r.arrivalMs);
  }

  summary(window: RunWindow): Summary {
    const { completed, outputTokens } = this;
    return {
      requests: this.requests,
      completed,
      outputTokens,
      ttft: this.ttft.summary(),
      itl: this.itl.summary(),
      tpot: this.tpot.summary(),
      e2e: this.e2e.summary(),
      throughput: throughputOf(completed, outputTokens, window),
      goodput: this.goodput.result(window),
      cache: this.cache.result(),
    };
  }
}

/** A record's inter-token gaps into the store, as `itlSamples` pools them; returns how many. */
function addGaps(store: ValueCounts, r: RequestRecord): number {
  if (r.itlMs !== undefined) {
    for (const gap of r.itlMs) store.add(gap);
    return r.itlMs.length;
  }
  const times = r.tokenTimesMs;
  if (times === undefined) return 0;
  for (let i = 1; i < times.length; i++) store.add(times[i]! - times[i - 1]!);
  return Math.max(0, times.length - 1);
}

function groupOf(groups: Map<string, GroupTally>, key: string): GroupTally {
  let group = groups.get(key);
  if (group === undefined) groups.set(key, (group = new GroupTally()));
  return group;
}

/** One summary per group, keys sorted, as `summarizeBy` gives them. */
function summariesOf(groups: Map<string, GroupTally>, window: RunWindow): Record<string, Summary> {
  const out: Record<string, Summary> = {};
  for (const key of [...groups.keys()].sort(byString)) out[key] = groups.get(key)!.summary(window);
  return out;
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
