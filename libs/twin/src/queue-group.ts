/**
 * The replicas of one stage behind its NATS queue group (docs/twin.md, "Stage replicas"). Live, the
 * server gives each message on the stage's submit subject to one member, in effect at random; here
 * a seeded source picks, so a run repeats. Worker events and cancels reach every member: the
 * callers loop over `replicas`. Each member is a core of its own, with its own state.
 */
export class QueueGroup<T> {
  /** How many handoffs each replica took, by index. */
  readonly taken: number[];

  constructor(
    readonly replicas: readonly T[],
    private readonly random: () => number,
  ) {
    if (replicas.length === 0) throw new Error('a queue group needs at least one replica');
    this.taken = replicas.map(() => 0);
  }

  /** The replica a handoff reaches. With one, nothing is drawn, so a run with one replica stays the run it was. */
  pick(): T {
    const n = this.replicas.length;
    const i = n === 1 ? 0 : Math.floor(this.random() * n);
    this.taken[i]!++;
    return this.replicas[i]!;
  }

  /** The replica at `index` (a core's own effects reach back to it: a refused handoff, a timer). */
  at(index: number): T {
    return this.replicas[index]!;
  }
}
