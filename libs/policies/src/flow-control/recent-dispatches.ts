/**
 * The times of recent dispatches, in dispatch order (times only grow), each marked once its
 * request leaves the books. Answers "dispatched in the last `age`" and "… and still in flight" in
 * O(log n): a binary search for the window's start, and a Fenwick tree over the done marks.
 * Positions are absolute (the n-th dispatch is position n), so a ledger entry finds its own mark.
 */
export class RecentDispatches {
  private times: number[] = [];
  private done = new Uint8Array(1024);
  private doneTree = new Int32Array(1025);
  /** Absolute position of `times[0]`. */
  private base = 0;
  /** Index in `times` of the first time still inside the window. */
  private start = 0;

  /** Records a dispatch at `atUs` (its position is the number of dispatches before it), dropping times before `horizonUs`. */
  push(atUs: number, horizonUs: number): void {
    this.times.push(atUs);
    if (this.times.length > this.done.length) this.rebuild(this.done.length * 2);
    while (this.start < this.times.length && this.times[this.start]! < horizonUs) this.start++;
    if (this.start > 1024 && this.start * 2 > this.times.length) this.compact();
  }

  /** The dispatch at absolute position `position` left the books (once; older than the window: ignored). */
  markDone(position: number): void {
    const i = position - this.base;
    if (i < this.start || i >= this.times.length || this.done[i] === 1) return;
    this.done[i] = 1;
    for (let node = i + 1; node < this.doneTree.length; node += node & -node) this.doneTree[node]! += 1;
  }

  /** Dispatches in the last `ageUs` before `nowUs`, done or not. */
  within(nowUs: number, ageUs: number): number {
    const first = this.firstWithin(nowUs, ageUs);
    return first === undefined ? 0 : this.times.length - first;
  }

  /** Dispatches in the last `ageUs` before `nowUs` not yet marked done. */
  inFlightWithin(nowUs: number, ageUs: number): number {
    const first = this.firstWithin(nowUs, ageUs);
    if (first === undefined) return 0;
    return this.times.length - first - (this.doneBefore(this.times.length) - this.doneBefore(first));
  }

  private firstWithin(nowUs: number, ageUs: number): number | undefined {
    if (!(ageUs >= 0)) return undefined;
    const since = nowUs - ageUs;
    let lo = this.start;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid]! < since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Done marks at indices below `end`. */
  private doneBefore(end: number): number {
    let sum = 0;
    for (let node = end; node > 0; node -= node & -node) sum += this.doneTree[node]!;
    return sum;
  }

  /** Drops the times before the window. */
  private compact(): void {
    this.times = this.times.slice(this.start);
    const done = this.done.slice(this.start, this.start + this.times.length);
    this.base += this.start;
    this.start = 0;
    this.done = done;
    this.rebuild(Math.max(1024, this.done.length * 2));
  }

  /** New capacity for the done marks; the tree is built anew from them (O(n)). */
  private rebuild(capacity: number): void {
    const done = new Uint8Array(capacity);
    done.set(this.done.subarray(0, Math.min(this.done.length, capacity)));
    this.done = done;
    this.doneTree = new Int32Array(capacity + 1);
    for (let i = 0; i < capacity; i++) {
      if (done[i] === 0) continue;
      for (let node = i + 1; node <= capacity; node += node & -node) this.doneTree[node]! += 1;
    }
  }
}
