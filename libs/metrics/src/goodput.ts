import { requestTpotMs } from './samples.js';
import type { RunWindow } from './throughput.js';
import type { RequestRecord } from './types.js';

/** How the requests that had one target (TTFT, TPOT or E2E) fared against it. */
export interface TargetAttainment {
  /** Requests that had this target, whatever their outcome. */
  readonly targeted: number;
  /** Of those, the ones that completed within it. */
  readonly met: number;
  /** met / targeted; null when no request had this target. */
  readonly attainment: number | null;
}

/**
 * Goodput and SLO attainment of a set of requests (docs/metrics.md, "Goodput"). A request is
 * *good* when it completed and met every target it carried (TTFT ≤ ttftMs, TPOT ≤ tpotMs,
 * E2E ≤ e2eMs); a completed request with no target is good (it has no SLO to miss). Rejected,
 * dropped and failed requests are never good, and miss every target they had.
 */
export interface Goodput {
  /** Good requests per second of the run's window: DistServe's goodput. */
  readonly requestsPerSec: number;
  readonly good: number;
  /** Requests with at least one target, whatever their outcome: attainment's denominator. */
  readonly targeted: number;
  /** Of those, the good ones. */
  readonly met: number;
  /** met / targeted (BLIS's slo_attainment); null when no request had a target. */
  readonly attainment: number | null;
  readonly ttft: TargetAttainment;
  readonly tpot: TargetAttainment;
  readonly e2e: TargetAttainment;
}

class Tally {
  targeted = 0;
  met = 0;

  count(within: boolean): boolean {
    this.targeted++;
    if (within) this.met++;
    return within;
  }

  result(): TargetAttainment {
    return { targeted: this.targeted, met: this.met, attainment: this.targeted === 0 ? null : this.met / this.targeted };
  }
}

/**
 * Counted as BLIS counts its goodput (sim/cluster/metrics.go, SLOAttainmentMultiDim, and
 * cmd/goodput.go, emitGoodput, inference-sim/inference-sim@f90a1e3a6787da17c2cd463dab6fb2660b1b1760):
 * good = completed and within every target set; attainment = good / offered, the denominator
 * counting rejected and dropped requests; goodput = good / run seconds. Two choices differ from
 * BLIS and are DistServe's ("goodput = requests per second that meet all their SLOs", Zhong et
 * al., OSDI 2024): the targets are the request's own (a client's or a trace row's, not only its
 * class's), and a completed request without a target counts toward goodput (BLIS leaves a class
 * without targets out of both counts; here it stays out of attainment's).
 */
export function goodput(records: readonly RequestRecord[], window: RunWindow): Goodput {
  const tally = new GoodputTally();
  for (const r of records) tally.add(r);
  return tally.result(window);
}

/** `goodput`, counted one record at a time (a streamed run's records, as they settle). */
export class GoodputTally {
  private readonly ttft = new Tally();
  private readonly tpot = new Tally();
  private readonly e2e = new Tally();
  private good = 0;
  private targeted = 0;
  private met = 0;

  add(r: RequestRecord): void {
    const slo = r.slo;
    const completed = r.outcome === 'completed' && r.endMs !== undefined;
    if (slo === undefined || (slo.ttftMs === undefined && slo.tpotMs === undefined && slo.e2eMs === undefined)) {
      if (completed) this.good++;
      return;
    }
    this.targeted++;
    let within = completed;
    // Every target is counted, also once one is missed: each dimension's attainment is its own.
    if (slo.ttftMs !== undefined) within = this.ttft.count(completed && r.firstTokenMs !== undefined && r.firstTokenMs - r.arrivalMs <= slo.ttftMs) && within;
    if (slo.tpotMs !== undefined) within = this.tpot.count(completed && requestTpotMs(r) <= slo.tpotMs) && within;
    if (slo.e2eMs !== undefined) within = this.e2e.count(completed && r.endMs - r.arrivalMs <= slo.e2eMs) && within;
    if (within) {
      this.good++;
      this.met++;
    }
  }

  /** The goodput over the run's window (known only at its end). */
  result(window: RunWindow): Goodput {
    const { good, targeted, met } = this;
    const seconds = window.durationMs / 1000;
    return {
      requestsPerSec: seconds > 0 ? good / seconds : 0,
      good,
      targeted,
      met,
      attainment: targeted === 0 ? null : met / targeted,
      ttft: this.ttft.result(),
      tpot: this.tpot.result(),
      e2e: this.e2e.result(),
    };
  }
}
