import type { InstanceView } from '../../../cluster-view.js';

/**
 * Where each instance id sits in a candidate list, kept from one decision to the next. A router
 * builds a new view for every decision, but of the same instances in the same order until one
 * joins or leaves: checking that the list is unchanged is one pass of reference compares, cheaper
 * than a map lookup per candidate (at 10 000 candidates, of which a prefix matched a few hundred,
 * those lookups were most of a weighted decision; docs/benchmarks.md).
 *
 * A changed list is remembered, and its positions built only when the next call brings the same
 * list again: a pool whose lists alternate (several models) never pays a rebuild per decision.
 */
export class CandidatePositions {
  private positionsFor: readonly string[] = [];
  private readonly positions = new Map<string, number>();
  /** Whether `positions` holds every id of `positionsFor` (false when ids repeat in it). */
  private complete = false;
  private lastSeen: string[] = [];

  /**
   * Each candidate's index by instance id, or undefined when it is not known yet (a list seen
   * for the first time) or an id repeats (then a lookup could not say which candidate).
   */
  of(candidates: readonly InstanceView[]): ReadonlyMap<string, number> | undefined {
    if (sameIds(candidates, this.positionsFor)) return this.complete ? this.positions : undefined;
    if (sameIds(candidates, this.lastSeen)) {
      this.rebuild(this.lastSeen);
      this.lastSeen = [];
      return this.complete ? this.positions : undefined;
    }
    this.lastSeen = idsOf(candidates);
    return undefined;
  }

  private rebuild(ids: readonly string[]): void {
    this.positions.clear();
    for (let i = 0; i < ids.length; i++) this.positions.set(ids[i]!, i);
    this.positionsFor = ids;
    this.complete = this.positions.size === ids.length;
  }
}

function sameIds(candidates: readonly InstanceView[], ids: readonly string[]): boolean {
  if (candidates.length !== ids.length) return false;
  for (let i = 0; i < ids.length; i++) if (candidates[i]!.instanceId !== ids[i]) return false;
  return true;
}

function idsOf(candidates: readonly InstanceView[]): string[] {
  const ids = new Array<string>(candidates.length);
  for (let i = 0; i < candidates.length; i++) ids[i] = candidates[i]!.instanceId;
  return ids;
}
