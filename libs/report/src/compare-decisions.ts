import type { DecisionTraceLine } from '@sluice/contracts';
import { percentile } from '@sluice/metrics';

/**
 * Two decision traces of one workload (live and twin, or two twin runs), decision by decision:
 * aligned by request id and attempt, a pair agrees when both chose the same instance (and, with
 * P/D, the same prefill instance). Instance ids differ between the sides (a live worker is
 * `worker-<hex>`, the twin's `twin`): each side's are compared by their rank (`-r<n>`) within
 * their worker process, processes numbered by sorted worker id (`instanceKeys`), so with one
 * worker process on each side instance r2 is instance r2.
 */
export interface DecisionComparison {
  readonly a: TraceSide;
  readonly b: TraceSide;
  /** Decisions present on both sides (same request id and attempt). */
  readonly matched: number;
  readonly onlyA: number;
  readonly onlyB: number;
  /** Matched pairs that chose the same instance(s): count, and share of `matched` (null when none). */
  readonly agree: number;
  readonly agreeShare: number | null;
  /**
   * Matched pairs whose listed candidates were the same instances with the same scores and
   * effective loads: the pairs where the two policies saw the same choice, which a same-policy,
   * same-seed pair in step decides alike. Scores, not the raw signals: a signal the policy does not
   * read (KV utilisation, to least-loaded) differs live and in the twin by a block's accounting,
   * and would hide every comparable pair under load; what the policy read is in the score.
   */
  readonly sameScores: number;
  readonly agreeSameScores: number;
  /**
   * The opening run of decisions made in step: the same requests in the same order on both sides,
   * each on the same scores. Within it the two routers' seeded tie-breaks have drawn alike, so a
   * same-policy, same-seed pair must agree on every one of them (`agreeInStep` = `inStep`). Past
   * it they need not, even on equal signals: a tie on one side draws a number the other does not,
   * and every later tie is broken from a different place in the stream.
   */
  readonly inStep: number;
  readonly agreeInStep: number;
  /** The first matched pair that disagreed, in A's decision order: both sides' lines. */
  readonly firstDisagreement: { readonly a: DecisionTraceLine; readonly b: DecisionTraceLine } | null;
}

/** One trace's own figures: its decisions and its regret. */
export interface TraceSide {
  readonly decisions: number;
  /** When its first decision was made (µs, on its own clock): where its times count from. */
  readonly firstAtUs: number | null;
  /** Decisions where nothing could take the request. */
  readonly none: number;
  readonly regret: RegretSummary;
}

/** Regret over the decisions that chose (in the policy's own score unit, docs/behaviour.md §4); percentiles interpolated as the run report's. */
export interface RegretSummary {
  readonly count: number;
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
  /** Share of them with regret > 0 (the policy did not take a best-ranked candidate). */
  readonly positiveShare: number | null;
}

const keyOf = (line: DecisionTraceLine) => `${line.requestId}#${line.attempt}`;

/**
 * Compares two traces held as arrays (in decision order). A's lines are indexed by request and
 * attempt; B's are walked once. A request decided twice for the same attempt (a refused handoff
 * routes it again) is compared at its last decision on each side.
 */
export function compareDecisions(a: readonly DecisionTraceLine[], b: readonly DecisionTraceLine[]): DecisionComparison {
  const keysA = instanceKeys(a);
  const keysB = instanceKeys(b);
  const byKey = new Map<string, DecisionTraceLine>();
  for (const line of a) byKey.set(keyOf(line), line);
  const lastB = new Map<string, DecisionTraceLine>();
  for (const line of b) lastB.set(keyOf(line), line);

  let matched = 0;
  let agree = 0;
  let sameScores = 0;
  let agreeSameScores = 0;
  let firstDisagreement: DecisionComparison['firstDisagreement'] = null;
  let firstDisagreementAt = Number.POSITIVE_INFINITY;
  const orderA = new Map<string, number>();
  a.forEach((line, i) => orderA.set(keyOf(line), i));
  for (const [key, lineB] of lastB) {
    const lineA = byKey.get(key);
    if (!lineA) continue;
    matched++;
    const same = chosenKey(lineA, keysA) === chosenKey(lineB, keysB);
    const scoredAlike = sameCandidates(lineA, lineB, keysA, keysB);
    if (same) agree++;
    if (scoredAlike) {
      sameScores++;
      if (same) agreeSameScores++;
    }
    const at = orderA.get(key)!;
    if (!same && at < firstDisagreementAt) {
      firstDisagreementAt = at;
      firstDisagreement = { a: lineA, b: lineB };
    }
  }
  // The in-step run: matched requests in each side's decision order (each at its last decision).
  const inOrder = (byKeyLast: ReadonlyMap<string, DecisionTraceLine>, lines: readonly DecisionTraceLine[]) =>
    lines.filter((line) => byKeyLast.get(keyOf(line)) === line && byKey.has(keyOf(line)) && lastB.has(keyOf(line)));
  const seqA = inOrder(byKey, a);
  const seqB = inOrder(lastB, b);
  let inStep = 0;
  let agreeInStep = 0;
  for (; inStep < seqA.length; inStep++) {
    const lineA = seqA[inStep]!;
    const lineB = seqB[inStep]!;
    if (keyOf(lineA) !== keyOf(lineB) || !sameCandidates(lineA, lineB, keysA, keysB)) break;
    if (chosenKey(lineA, keysA) === chosenKey(lineB, keysB)) agreeInStep++;
  }
  return {
    a: sideOf(a),
    b: sideOf(b),
    matched,
    onlyA: byKey.size - matched,
    onlyB: lastB.size - matched,
    agree,
    agreeShare: matched === 0 ? null : agree / matched,
    sameScores,
    agreeSameScores,
    inStep,
    agreeInStep,
    firstDisagreement,
  };
}

/**
 * Each instance id of a trace as a key both sides share: `<process>/r<rank>`, the process being
 * the index of its worker id among the trace's worker ids, sorted. An id without a rank suffix is
 * kept as it is.
 */
export function instanceKeys(lines: readonly DecisionTraceLine[]): (id: string) => string {
  const ids = new Set<string>();
  for (const line of lines) {
    if (line.instance !== null) ids.add(line.instance);
    if (line.pd?.prefillInstance !== undefined) ids.add(line.pd.prefillInstance);
    for (const c of line.top) ids.add(c.instanceId);
  }
  const split = (id: string) => /^(.*)-r(\d+)$/.exec(id);
  const workers = [...new Set([...ids].map((id) => split(id)?.[1]).filter((w): w is string => w !== undefined))].sort();
  const keys = new Map<string, string>();
  for (const id of ids) {
    const parts = split(id);
    keys.set(id, parts ? `${workers.indexOf(parts[1]!)}/r${parts[2]}` : id);
  }
  return (id) => keys.get(id) ?? id;
}

function chosenKey(line: DecisionTraceLine, key: (id: string) => string): string {
  const decode = line.instance === null ? '-' : key(line.instance);
  return line.pd?.prefillInstance === undefined ? decode : `${decode}<${key(line.pd.prefillInstance)}`;
}

/** The same candidates listed (by instance key), each with the same score and effective load. */
function sameCandidates(a: DecisionTraceLine, b: DecisionTraceLine, keyA: (id: string) => string, keyB: (id: string) => string): boolean {
  if (a.candidates !== b.candidates || a.top.length !== b.top.length) return false;
  const inB = new Map(b.top.map((c) => [keyB(c.instanceId), c]));
  return a.top.every((c) => {
    const other = inB.get(keyA(c.instanceId));
    return other !== undefined && other.score === c.score && other.effectiveLoad === c.effectiveLoad;
  });
}

function sideOf(lines: readonly DecisionTraceLine[]): TraceSide {
  const regrets: number[] = [];
  let none = 0;
  for (const line of lines) {
    if (line.instance === null) none++;
    else if (line.regret !== null) regrets.push(line.regret);
  }
  return { decisions: lines.length, firstAtUs: lines[0]?.atUs ?? null, none, regret: regretSummary(regrets) };
}

export function regretSummary(values: readonly number[]): RegretSummary {
  if (values.length === 0) return { count: 0, mean: null, p50: null, p99: null, max: null, positiveShare: null };
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  let positive = 0;
  for (const v of sorted) {
    sum += v;
    if (v > 0) positive++;
  }
  return { count: sorted.length, mean: sum / sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1]!, positiveShare: positive / sorted.length };
}
