import { heardAt, type FlowQueueReport, type Micros } from '@sluice/contracts';

/**
 * The flow controllers' latest queue reports, one per process (docs/behaviour.md §2). Flow
 * control queues are per replica, so what waits ahead is the sum over the live reports. A
 * report older than `maxAgeUs` (a controller gone silent) no longer counts. Pure.
 */
export class FlowQueueBoard {
  private readonly reports = new Map<string, FlowQueueReport>();

  constructor(private readonly maxAgeUs: Micros) {}

  onReport(report: FlowQueueReport): void {
    const known = this.reports.get(report.processId);
    // Reports of one process can cross on the bus: the newer one stands.
    if (!known || known.atUs <= report.atUs) this.reports.set(report.processId, report);
  }

  /** Requests of `model` queued with priority ≥ `priority`: dispatched before a request of `priority`. */
  queuedAhead(model: string, priority: number, nowUs: Micros): number {
    let n = 0;
    for (const report of this.live(nowUs)) {
      for (const band of report.bands) if (band.model === model && band.priority >= priority) n += band.requests;
    }
    return n;
  }

  /** When the oldest live report was taken; undefined when none is live. */
  oldestAtUs(nowUs: Micros): Micros | undefined {
    let oldest: Micros | undefined;
    for (const report of this.live(nowUs)) if (oldest === undefined || report.atUs < oldest) oldest = report.atUs;
    return oldest;
  }

  /** Forgets reports of processes silent past `maxAgeUs`. */
  expire(nowUs: Micros): void {
    for (const [id, report] of this.reports) if (nowUs - this.dated(id, report, nowUs).atUs > this.maxAgeUs) this.reports.delete(id);
  }

  private *live(nowUs: Micros): Iterable<FlowQueueReport> {
    for (const [id, report] of this.reports) {
      const dated = this.dated(id, report, nowUs);
      if (nowUs - dated.atUs <= this.maxAgeUs) yield dated;
    }
  }

  /**
   * A report dated after `nowUs` is kept as taken now, and ages from here (heardAt): a forged date
   * in the future would otherwise keep its queue counted for good, and outrank every later report
   * of that process.
   */
  private dated(id: string, report: FlowQueueReport, nowUs: Micros): FlowQueueReport {
    const atUs = heardAt(report.atUs, nowUs);
    if (atUs === report.atUs) return report;
    const now = { ...report, atUs };
    this.reports.set(id, now);
    return now;
  }
}
