/**
 * When each step of one instance delivers its tokens to the client, in ms, by step number (0, 1,
 * …): a step's tokens all arrive at once. A request's token times are then the times of the steps
 * that gave it a token, read when its record is written, so a token costs the twin a counter on
 * the request rather than a write to a per-request array that is cold by then.
 */
export class StepTimes {
  /** Starts small and doubles: with thousands of instances most log few steps. */
  private timesMs = new Float64Array(64);
  private count = 0;

  /** Appends the next step's delivery time; returns its step number. */
  push(timeMs: number): number {
    if (this.count === this.timesMs.length) {
      const grown = new Float64Array(this.timesMs.length * 2);
      grown.set(this.timesMs);
      this.timesMs = grown;
    }
    this.timesMs[this.count] = timeMs;
    return this.count++;
  }

  /**
   * Writes the times of steps start … start + length − 1 into `out` from index `at`; returns the
   * index after the last one written. `out` is sized by the caller: a record's token times are
   * filled into an array of their exact length, not grown by push (which allocated twice the
   * bytes, in four copies, and kept ~30% slack in every record).
   */
  copyRun(out: number[], at: number, start: number, length: number): number {
    if (start < 0 || start + length > this.count) throw new RangeError(`steps ${start}…${start + length - 1} are not all logged (${this.count} are)`);
    for (let i = 0; i < length; i++) out[at + i] = this.timesMs[start + i]!;
    return at + length;
  }
}
