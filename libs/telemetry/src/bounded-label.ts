/**
 * A label whose values come from outside (tenant ids, model names): the first `limit` distinct
 * values are kept as they are, every later one reads `overflow`, so a client inventing ids cannot
 * grow a metrics page without bound. The llm-d router caps `fairness_id` and model labels the same
 * way, at 1000 with `other` (llm-d/llm-d-router docs/metrics.md, "cardinality").
 *
 * A value once kept stays kept until `release`d: its series already exist, and relabelling it
 * later would split one tenant across two series.
 */
export class BoundedLabel {
  private readonly kept = new Set<string>();

  constructor(
    readonly limit = 1000,
    readonly overflow = 'other',
  ) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  }

  /** The label value to write for `value`. */
  of(value: string): string {
    if (this.kept.has(value)) return value;
    if (this.kept.size >= this.limit) return this.overflow;
    this.kept.add(value);
    return value;
  }

  /** Makes room: the caller removed `value`'s series. */
  release(value: string): void {
    this.kept.delete(value);
  }

  get size(): number {
    return this.kept.size;
  }
}
