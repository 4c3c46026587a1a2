/**
 * When each step of one instance delivers its tokens to the client, in ms, by step number (0, 1,
 * …): a step's tokens all arrive at once. A request's token times are then the times of the steps
 * that gave it a token, read when its record is written, so a token costs the twin a counter on
 * the request rather than a write to a per-request array that is cold by then.
 */
export class StepTimes {
  private timesMs = new Float64Array(1024);
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

  /** Appends to `out` the times of steps start … start + length − 1. */
  appendRun(out: number[], start: number, length: number): void {
    if (start < 0 || start + length > this.count) throw new RangeError(`steps ${start}…${start + length - 1} are not all logged (${this.count} are)`);
    for (let step = start; step < start + length; step++) out.push(this.timesMs[step]!);
  }
}
