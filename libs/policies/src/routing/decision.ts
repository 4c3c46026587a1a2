import type { ClusterView, InstanceView, PolicyRequest } from '../cluster-view.js';
import type { RankedCandidate, RoutingDecision, TieBreak } from './routing-policy.js';
import { scoreArray } from './scorers/scorer.js';

/**
 * The load a routing policy weighs (docs/behaviour.md §4, BLIS's effective load): requests waiting
 * and running on the instance, from its last snapshot, plus those this router dispatched there
 * (router-owned and exact). Snapshot fields read 0 before the first snapshot.
 */
export function effectiveLoad(instance: InstanceView): number {
  return instance.queueDepth + instance.batchSize + instance.inFlight;
}

/**
 * The instances that may take the request: those serving its model, in view order. When all of
 * them do (the usual single-model pool), the view's own array, not a copy.
 */
export function routingCandidates(request: PolicyRequest, cluster: ClusterView): readonly InstanceView[] {
  const { instances } = cluster;
  for (const instance of instances) {
    if (instance.model !== request.model) return instances.filter((i) => i.model === request.model);
  }
  return instances;
}

/**
 * The index of the largest value; among exact ties, one drawn with `random` (which is called
 * only when there is a tie), or the one `tieBreak` picks when given. NaN never wins. Returns 0
 * for an empty or all-NaN list.
 */
export function argMaxRandomTie(values: ArrayLike<number>, random: () => number, tieBreak?: TieBreak): number {
  let best = Number.NEGATIVE_INFINITY;
  let first = -1;
  let ties = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > best || (first < 0 && v === best)) {
      best = v;
      first = i;
      ties = 1;
    } else if (v === best) {
      ties++;
    }
  }
  if (first < 0) return 0;
  if (ties === 1) return first;
  // A source returning exactly 1 (outside its contract) still lands on the last tie.
  let k = Math.min(ties - 1, tieBreak ? tieBreak(ties) : Math.floor(random() * ties));
  for (let i = first; i < values.length; i++) {
    if (values[i] === best && k-- === 0) return i;
  }
  return first;
}

/** Runs this short are insertion-sorted before merging (fewer passes over the arrays). */
const RUN = 16;

/**
 * Candidate indices best first: a stable sort by score, descending (so equal scores keep view
 * order), then the chosen one moved to the front of its tie group. Hand-written over typed
 * arrays, the keys moved along with the indices so comparisons read memory in order: with a
 * comparator, Array.prototype.sort costs a call per comparison, 2–3× this at 1 000 candidates.
 */
export function rankOrder(scores: ArrayLike<number>, chosen: number): Int32Array {
  const n = scores.length;
  let order = new Int32Array(n);
  let spare = new Int32Array(n);
  let keys = new Float64Array(n);
  let spareKeys = new Float64Array(n);
  const keyOf = (score: number) => (Number.isNaN(score) ? Number.NEGATIVE_INFINITY : score); // NaN ranks last
  for (let i = 0; i < n; i++) {
    order[i] = i;
    keys[i] = keyOf(scores[i]!);
  }
  // Insertion sort of each run: shift only strictly smaller keys, which keeps it stable.
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(lo + RUN, n);
    for (let i = lo + 1; i < hi; i++) {
      const key = keys[i]!;
      const index = order[i]!;
      let j = i - 1;
      for (; j >= lo && keys[j]! < key; j--) {
        keys[j + 1] = keys[j]!;
        order[j + 1] = order[j]!;
      }
      keys[j + 1] = key;
      order[j + 1] = index;
    }
  }
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      // Take from the right run only when strictly better: that is what keeps the merge stable.
      while (i < mid && j < hi) {
        if (keys[j]! > keys[i]!) {
          spareKeys[k] = keys[j]!;
          spare[k++] = order[j++]!;
        } else {
          spareKeys[k] = keys[i]!;
          spare[k++] = order[i++]!;
        }
      }
      for (; i < mid; i++, k++) {
        spareKeys[k] = keys[i]!;
        spare[k] = order[i]!;
      }
      for (; j < hi; j++, k++) {
        spareKeys[k] = keys[j]!;
        spare[k] = order[j]!;
      }
    }
    const merged = spare;
    spare = order;
    order = merged;
    const mergedKeys = spareKeys;
    spareKeys = keys;
    keys = mergedKeys;
  }
  // The chosen one goes first among its equals.
  const chosenKey = keyOf(scores[chosen]!);
  let p = order.indexOf(chosen);
  for (; p > 0 && keys[p - 1] === chosenKey; p--) order[p] = order[p - 1]!;
  if (p >= 0) order[p] = chosen;
  return order;
}

/**
 * The decision for candidate `chosen`, with its counterfactual regret, max(0, best − chosen),
 * computed now in one pass. The ranking (every candidate, best first; ties: the chosen one first,
 * then view order) is built on the first read of `ranked` and kept: it costs a sort and an object
 * per candidate, which a service that does not record the decision's span need not pay.
 * `perScorer(i)` gives the i-th candidate's unweighted scorer scores (the weighted policy's).
 * The caller hands over `scores` (and what perScorer reads): they must not change afterwards,
 * unless a `lease` is given: then they may change once `lease.renew()` has been called, and the
 * ranking, unread by then, can no longer be read (a clear error, never a wrong answer).
 */
export function rankedDecision(
  candidates: readonly InstanceView[],
  scores: ArrayLike<number>,
  chosen: number,
  perScorer?: (index: number) => Readonly<Record<string, number>>,
  lease?: ScoreLease,
): RoutingDecision {
  return new RankedDecision(candidates, scores, chosen, perScorer, lease);
}

/**
 * The term of a policy's reusable score arrays: a decision made on them reads its ranking only
 * while the term it was made in lasts. A policy renews it before it writes the arrays again (its
 * next route()). Reusing the arrays spares a decision at 10 000 candidates ~320 KB of allocation,
 * whose young-generation collections were most of its p99 (docs/benchmarks.md); every reader in
 * this repository (the router's span, the decision trace) reads the ranking before the next route.
 */
export class ScoreLease {
  private term = 0;

  /** The current term, which a decision made now keeps. */
  get current(): number {
    return this.term;
  }

  /** Ends the current term: decisions made in it can no longer read their ranking. */
  renew(): void {
    this.term++;
  }
}

/**
 * A class, not an object literal with a getter and closures: every routed request makes one, and
 * a literal cost an accessor pair, three closures and their context per decision (the twin routes
 * a million requests; docs/benchmarks.md).
 */
class RankedDecision implements RoutingDecision {
  readonly instance: InstanceView;
  readonly regret: number;
  private rankedCache: readonly RankedCandidate[] | undefined = undefined;
  /** The lease's term this decision was made in (0 without a lease). */
  private readonly term: number;

  constructor(
    private readonly candidates: readonly InstanceView[],
    private readonly scores: ArrayLike<number>,
    private readonly chosen: number,
    private readonly perScorer: ((index: number) => Readonly<Record<string, number>>) | undefined,
    private readonly lease: ScoreLease | undefined,
  ) {
    this.term = lease ? lease.current : 0;
    let best = scores[chosen]!;
    for (let i = 0; i < scores.length; i++) if (scores[i]! > best) best = scores[i]!;
    this.instance = candidates[chosen]!;
    this.regret = Math.max(0, best - scores[chosen]!);
  }

  get ranked(): readonly RankedCandidate[] {
    if (this.rankedCache) return this.rankedCache;
    this.checkLease();
    return (this.rankedCache = Array.from(rankOrder(this.scores, this.chosen), (i) => this.entry(i)));
  }

  top(k: number): readonly RankedCandidate[] {
    if (this.rankedCache) return this.rankedCache.slice(0, k);
    this.checkLease();
    return topOrder(this.scores, this.chosen, k).map((i) => this.entry(i));
  }

  private checkLease(): void {
    if (this.lease && this.lease.current !== this.term) {
      throw new Error(
        'routing decision: its ranking was read after the policy routed another request, which reused the score arrays; read ranked or top(k) before the next route()',
      );
    }
  }

  /** Serialised as the plain decision it stands for: the ranking is a field there, not a getter. */
  toJSON(): { instance: InstanceView; regret: number; ranked: readonly RankedCandidate[] } {
    return { instance: this.instance, regret: this.regret, ranked: this.ranked };
  }

  private entry(i: number): RankedCandidate {
    const candidate = this.candidates[i]!;
    const score = this.scores[i]!;
    const load = effectiveLoad(candidate);
    const { instanceId } = candidate;
    return this.perScorer ? { instanceId, score, effectiveLoad: load, scores: this.perScorer(i) } : { instanceId, score, effectiveLoad: load };
  }
}

/**
 * The first `k` indices of `rankOrder(scores, chosen)`, in one pass keeping the best k seen so
 * far in order, O(n·k) at worst and about n comparisons when k is small: the same order (score
 * descending, NaN last; among equals the chosen one first, then view order). That order is strict
 * and total over indices, so any selection of the k first under it gives this same list.
 */
export function topOrder(scores: ArrayLike<number>, chosen: number, k: number): number[] {
  const n = scores.length;
  // As many as the repeated selection this replaced took: ⌈k⌉ rounds, none for k ≤ 0 or NaN.
  const size = k > 0 ? Math.min(n, Math.ceil(k)) : 0;
  const order: number[] = [];
  if (size === 0) return order;
  // The kept entries' keys beside them, compared inline: a comparator closure returning doubles
  // boxed each one, ~300 KB of garbage per decision at 10 000 candidates.
  const keys = new Float64Array(size);
  for (let i = 0; i < n; i++) {
    const score = scores[i]!;
    const key = Number.isNaN(score) ? Number.NEGATIVE_INFINITY : score; // NaN ranks last
    // Among equal keys i goes first only if it is the chosen one: the others met it earlier in view order.
    let p = order.length;
    if (p === size) {
      const last = keys[p - 1]!;
      if (key < last || (key === last && i !== chosen)) continue;
      p--; // the last one is dropped
    }
    for (; p > 0 && (key > keys[p - 1]! || (key === keys[p - 1]! && i === chosen)); p--) {
      order[p] = order[p - 1]!;
      keys[p] = keys[p - 1]!;
    }
    order[p] = i;
    keys[p] = key;
  }
  return order;
}

/** −effective load per candidate: the score of the policies that have none of their own. */
export function negativeLoads(loads: ArrayLike<number>): Float64Array {
  const scores = new Float64Array(loads.length);
  // 0 − load, not −load: an idle instance scores +0, never −0.
  for (let i = 0; i < loads.length; i++) scores[i] = 0 - loads[i]!;
  return scores;
}

/**
 * −effective load per candidate written into `out` (resized to the candidates, as scorers' arrays
 * are): the scores of least-loaded and round-robin, whose arrays are reused under a ScoreLease. A
 * fresh Float64Array per decision at 10 000 candidates (two, with the loads) was 160 KB outside
 * the heap, enough to start an old-generation collection every few hundred decisions.
 */
export function negativeLoadsInto(candidates: readonly InstanceView[], out: number[]): number[] {
  const scores = scoreArray(candidates.length, out);
  // 0 − load, not −load, as in negativeLoads: an idle instance scores +0.
  for (let i = 0; i < candidates.length; i++) scores[i] = 0 - effectiveLoad(candidates[i]!);
  return scores;
}

export function loadsOf(candidates: readonly InstanceView[]): Float64Array {
  const loads = new Float64Array(candidates.length);
  for (let i = 0; i < candidates.length; i++) loads[i] = effectiveLoad(candidates[i]!);
  return loads;
}
