import { describe, expect, it } from 'vitest';
import { micros, type DecisionTraceLine, type TracedCandidate } from '@sluice/contracts';
import { compareDecisions, instanceKeys, regretSummary } from './compare-decisions.js';

const signals = (queueDepth: number) => ({ queueDepth, batchSize: 0, inFlight: 0, kvUtilization: 0, snapshotAgeMs: 3 });
const candidate = (instanceId: string, queueDepth = 0): TracedCandidate => ({ instanceId, score: -queueDepth, effectiveLoad: queueDepth, signals: signals(queueDepth) });

/** A decision among two instances of one worker (`worker`), choosing `rank`. */
function decision(worker: string, requestId: string, rank: number, extra: Partial<DecisionTraceLine> = {}, depths: readonly [number, number] = [0, 0]): DecisionTraceLine {
  const top = [candidate(`${worker}-r${rank}`, depths[rank]), candidate(`${worker}-r${1 - rank}`, depths[1 - rank])];
  return { atUs: micros(0), requestId, attempt: 0, model: 'm', policy: 'least-loaded', candidates: 2, instance: `${worker}-r${rank}`, regret: 0, top, ...extra };
}

describe('compareDecisions', () => {
  it('aligns by request and attempt, matching instances by rank across worker names', () => {
    const live = [decision('worker-3fa2c1', 'r0', 0), decision('worker-3fa2c1', 'r1', 1), decision('worker-3fa2c1', 'r2', 0), decision('worker-3fa2c1', 'r3', 1, { attempt: 1 })];
    const twin = [decision('twin', 'r1', 1), decision('twin', 'r0', 0), decision('twin', 'r2', 1), decision('twin', 'r4', 0)];
    const c = compareDecisions(live, twin);
    expect(c.matched).toBe(3);
    expect(c.onlyA).toBe(1); // r3's attempt 1
    expect(c.onlyB).toBe(1); // r4
    expect(c.agree).toBe(2);
    expect(c.agreeShare).toBeCloseTo(2 / 3);
    expect(c.firstDisagreement?.a.requestId).toBe('r2');
    expect(c.firstDisagreement?.b.instance).toBe('twin-r1');
  });

  it('reports the first disagreement in A\'s decision order, and counts those made on the same scores', () => {
    const a = [decision('a', 'r0', 0, {}, [0, 0]), decision('a', 'r1', 0, {}, [1, 2]), decision('a', 'r2', 1, {}, [0, 0])];
    const b = [decision('b', 'r2', 0, {}, [0, 0]), decision('b', 'r1', 1, {}, [2, 1]), decision('b', 'r0', 0, {}, [0, 0])];
    const c = compareDecisions(a, b);
    expect(c.agree).toBe(1);
    expect(c.firstDisagreement?.a.requestId).toBe('r1');
    // r0 and r2 were decided on equal scores (r2 disagreeing: a tie broken differently); r1 was not.
    expect(c.sameScores).toBe(2);
    expect(c.agreeSameScores).toBe(1);
  });

  it('counts the opening run in step: the same requests in the same order on the same scores', () => {
    const a = [decision('a', 'r0', 0), decision('a', 'r1', 1), decision('a', 'r2', 0, {}, [1, 0]), decision('a', 'r3', 0)];
    // B decides r0, r1 alike, then r2 on other scores: the run ends there, though r3 is decided on equal ones.
    const b = [decision('b', 'r0', 0), decision('b', 'r1', 1), decision('b', 'r2', 0, {}, [0, 1]), decision('b', 'r3', 1)];
    expect(compareDecisions(a, b)).toMatchObject({ inStep: 2, agreeInStep: 2, sameScores: 3, agreeSameScores: 2 });
    // The same decisions in another order are not in step past the first.
    const swapped = [decision('b', 'r0', 0), decision('b', 'r2', 0, {}, [1, 0]), decision('b', 'r1', 1), decision('b', 'r3', 0)];
    expect(compareDecisions(a, swapped)).toMatchObject({ inStep: 1, agree: 4 });
  });

  it('takes scores, not signals the policy does not read, as what the two routers saw', () => {
    const a = decision('a', 'r0', 0);
    const b = decision('b', 'r0', 0);
    const kvApart = { ...b, top: b.top.map((c) => ({ ...c, signals: { ...c.signals, kvUtilization: 0.003 } })) };
    expect(compareDecisions([a], [kvApart])).toMatchObject({ sameScores: 1, inStep: 1 });
    const scoredApart = { ...b, top: b.top.map((c, i) => ({ ...c, score: i === 0 ? 0.5 : c.score })) };
    expect(compareDecisions([a], [scoredApart])).toMatchObject({ sameScores: 0, inStep: 0 });
  });

  it('compares P/D decisions on both picks, and a decision with no instance as a choice of its own', () => {
    const pd = (prefill: string): Partial<DecisionTraceLine> => ({ pd: { placement: 'remote', prefillInstance: prefill, nonCachedTokens: 64 } });
    const none: Partial<DecisionTraceLine> = { instance: null, regret: null, top: [] };
    const a = [decision('a', 'r0', 0, pd('a-r1')), decision('a', 'r1', 0, pd('a-r1')), decision('a', 'r2', 0, none)];
    const b = [decision('b', 'r0', 0, pd('b-r1')), decision('b', 'r1', 0, pd('b-r0')), decision('b', 'r2', 0, none)];
    const c = compareDecisions(a, b);
    expect(c.agree).toBe(2);
    expect(c.firstDisagreement?.a.requestId).toBe('r1');
    expect(c.a.none).toBe(1);
    expect(c.a.regret.count).toBe(2);
  });

  it('compares a request decided twice in one attempt (a refused handoff) at its last decision', () => {
    const a = [decision('a', 'r0', 0), decision('a', 'r0', 1)];
    const b = [decision('b', 'r0', 1)];
    expect(compareDecisions(a, b)).toMatchObject({ matched: 1, agree: 1, onlyA: 0, onlyB: 0 });
  });

  it('summarises each side\'s regret over the decisions that chose', () => {
    const regrets = [0, 0, 0, 2, 4];
    const a = regrets.map((regret, i) => decision('a', `r${i}`, 0, { regret }));
    const c = compareDecisions(a, []);
    expect(c.a.regret).toEqual({ count: 5, mean: 1.2, p50: 0, p99: 4 - 0.04 * 2, max: 4, positiveShare: 0.4 });
    expect(c.matched).toBe(0);
    expect(c.agreeShare).toBeNull();
    expect(regretSummary([])).toEqual({ count: 0, mean: null, p50: null, p99: null, max: null, positiveShare: null });
  });
});

describe('instanceKeys', () => {
  it('numbers worker processes by sorted worker id and keeps the rank; ids without a rank stay as they are', () => {
    const key = instanceKeys([decision('worker-b', 'r0', 0), decision('worker-a', 'r1', 1), { ...decision('x', 'r2', 0), instance: 'odd', top: [] }]);
    expect([key('worker-a-r1'), key('worker-b-r0'), key('odd')]).toEqual(['0/r1', '1/r0', 'odd']);
  });
});
