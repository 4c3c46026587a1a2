import type { Micros } from '@sluice/contracts';

export interface InFlightLedgerSettings {
  /**
   * How long after its admission a request can first be in a report: the hops to flow control
   * and on to an instance. A report taken sooner may have been taken before it arrived.
   */
  readonly settleUs: Micros;
  /** An entry no report retired leaves after this long (a silent reporter must not pin it). */
  readonly maxAgeUs: Micros;
  /** Entries kept per model at most; past it the oldest go first (bounded memory under any burst). */
  readonly maxPerModel: number;
}

/** One model's admission times, oldest first: a queue over an array, its head an index. */
class AdmissionTimes {
  private times: Micros[] = [];
  private head = 0;

  get size(): number {
    return this.times.length - this.head;
  }

  /** Slots the array holds, dropped ones included (at most about twice the entries, past 64). */
  get slots(): number {
    return this.times.length;
  }

  push(atUs: Micros, max: number): void {
    if (this.size >= max) this.head++;
    this.times.push(atUs);
    this.compact();
  }

  /** Drops the oldest while `leaves(oldest)` says so. */
  dropWhile(leaves: (atUs: Micros) => boolean): void {
    while (this.head < this.times.length && leaves(this.times[this.head]!)) this.head++;
    this.compact();
  }

  /**
   * Compacts once the dropped half dominates, so the array does not grow with the run: on every
   * drop, and on every push, since a chain that never asks for the count drops only at the cap.
   */
  private compact(): void {
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

/**
 * The requests this admission process admitted that no report can show yet (docs/behaviour.md §2,
 * "predictive inputs"). Admission never learns which instance a request lands on (the router picks
 * it after flow control), so entries are kept per model. An entry is retired by a watermark: the
 * time of the oldest report that could show it, i.e. the oldest of the model's instances'
 * snapshots and of the flow controllers' queue reports. Once every one of them was taken at
 * least `settleUs` after the admission, the request was, at the time of each, either queued in
 * flow control (the queue report counts it) or on an instance (its snapshot counts it). Admission
 * times only grow, so entries retire oldest first and the ledger is a queue per model: O(1)
 * amortised per admission. A request may still be counted twice (queued, and still here until
 * the snapshots catch up) for at most one snapshot interval: a conservative error, where the
 * error this ledger exists to remove (a burst admitted against one stale snapshot) is the
 * optimistic one. Pure: times are passed in.
 */
export class InFlightLedger {
  private readonly byModel = new Map<string, AdmissionTimes>();

  constructor(private readonly settings: InFlightLedgerSettings) {}

  admitted(model: string, nowUs: Micros): void {
    let times = this.byModel.get(model);
    if (!times) this.byModel.set(model, (times = new AdmissionTimes()));
    times.push(nowUs, this.settings.maxPerModel);
  }

  /**
   * The model's entries still unseen at `nowUs`, given `watermarkUs` (the oldest report that
   * could show one; -Infinity when some reporter has not reported yet). Retires the rest.
   */
  unseen(model: string, watermarkUs: number, nowUs: Micros): number {
    const times = this.byModel.get(model);
    if (!times) return 0;
    const { settleUs, maxAgeUs } = this.settings;
    times.dropWhile((atUs) => atUs + settleUs <= watermarkUs || nowUs - atUs > maxAgeUs);
    if (times.size === 0) this.byModel.delete(model);
    return times.size;
  }

  /**
   * Retires entries past their maximum age in every model (the stage's sweep): a chain whose
   * checks never ask for the count must not keep a burst's entries until the next burst.
   */
  expire(nowUs: Micros): void {
    for (const [model, times] of this.byModel) {
      times.dropWhile((atUs) => nowUs - atUs > this.settings.maxAgeUs);
      if (times.size === 0) this.byModel.delete(model);
    }
  }

  /** Array slots held across every model, dropped ones included (a bound the tests hold it to). */
  get slots(): number {
    let n = 0;
    for (const times of this.byModel.values()) n += times.slots;
    return n;
  }

  /** Entries kept across every model (a bound the tests hold it to). */
  get size(): number {
    let n = 0;
    for (const times of this.byModel.values()) n += times.size;
    return n;
  }
}
