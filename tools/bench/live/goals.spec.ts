import { describe, expect, it } from 'vitest';
import { checkGoals, goalLines } from './goals.mjs';

/** An open-loop run as live-path summarises it, with only what the goals read (`rawP99`: its raw pipeline's p99, when measured). */
const run = (rate: number, { achievedRate = rate, p99 = 1, clusterUs = 400, rawRoundTripUs = 100, rawP99 = undefined as number | undefined } = {}) => ({
  rate,
  achievedRate,
  overhead: { n: 100, p50: p99 / 2, p99, max: p99 },
  cpuPerRequest: { clusterUs, rawRoundTripUs, ratioToRaw: clusterUs / (6 * rawRoundTripUs) },
  ...(rawP99 === undefined ? {} : { rawPipeline: { latency: { n: 100, p50: rawP99 / 4, p99: rawP99, max: rawP99 } } }),
});

const idle = (gapMs: number, overheadP50Ms: number, rawTransitP50Ms: number) => ({ gapMs, overheadP50Ms, rawTransitP50Ms });

const everyGoalMet = {
  runs: [run(500, { p99: 4.9 }), run(1000, { p99: 9.9, clusterUs: 500 })],
  sustained: 2000,
  sustainSearched: true,
  rawThroughput: 10_000,
  idle: [idle(40, 0.9 * 3, 0.5), idle(1000, 1.5 * 6 * 0.5, 0.5)],
};

const verdicts = (goals: ReturnType<typeof checkGoals>) => goals.map((g) => g.met);

describe('the live path goals', () => {
  it('are all met at their bounds', () => {
    expect(verdicts(checkGoals(everyGoalMet))).toEqual([true, true, true, true, true, true]);
  });

  it('each fails just past its bound', () => {
    const goals = checkGoals({
      runs: [run(500, { p99: 5.01 }), run(1000, { p99: 10.01, clusterUs: 501 })],
      sustained: 1999,
      sustainSearched: true,
      rawThroughput: 10_000,
      idle: [idle(40, 1.51 * 6 * 0.5, 0.5)],
    });
    expect(verdicts(goals)).toEqual([false, false, false, false, false]);
  });

  it('divides the CPU per request by six raw round trips at the same rate', () => {
    const [cpu] = checkGoals({ ...everyGoalMet, runs: [run(1000, { clusterUs: 450, rawRoundTripUs: 150 })] });
    expect(cpu?.figure).toContain('450 µs = 0.50× 6 raw round trips at the same rate (900 µs)');
  });

  it('says not measured when a goal rate was not offered, and no rate held counts as not met', () => {
    const goals = checkGoals({ runs: [run(2000)], sustained: undefined, sustainSearched: true, rawThroughput: 10_000, idle: [] });
    expect(verdicts(goals)).toEqual([undefined, false, undefined, undefined]);
    expect(goalLines(goals)[0]).toMatch(/: not measured$/);
    expect(goals[1]?.figure).toBe('no rate held');
  });

  it('leaves the throughput goal unjudged when the sustained search did not run', () => {
    expect(checkGoals({ ...everyGoalMet, sustained: undefined, sustainSearched: false })[1]?.met).toBeUndefined();
  });

  it('marks a figure read at a rate the cluster fell behind (achieved < 97 % of offered)', () => {
    const goals = checkGoals({ ...everyGoalMet, runs: [run(500, { achievedRate: 484, p99: 2 }), run(1000, { achievedRate: 970, p99: 2 })] });
    expect(goals[2]?.figure).toContain('achieved 484/s: the cluster fell behind');
    expect(goals[3]?.figure).not.toContain('fell behind');
  });

  it('prints the overhead p99 against the raw pipeline at the same rate, and still judges it by the absolute bound', () => {
    const goals = checkGoals({ ...everyGoalMet, runs: [run(500, { p99: 4.9, rawP99: 1.4 }), run(1000, { p99: 10.5, rawP99: 21 })] });
    expect(goals[2]?.figure).toBe("4.90 ms = 3.50× the raw 6-hop pipeline's p99 at the same rate (1.40 ms)");
    expect(goals[2]?.met).toBe(true);
    expect(goals[2]?.rawP99).toBe(1.4);
    expect(goals[3]?.figure).toBe("10.50 ms = 0.50× the raw 6-hop pipeline's p99 at the same rate (21.00 ms)");
    expect(goals[3]?.met).toBe(false);
  });

  it('prints the overhead p99 alone when the raw pipeline was not measured', () => {
    expect(checkGoals(everyGoalMet)[2]?.figure).toBe('4.90 ms');
  });

  it('judges every idle pause and labels the longer ones as reported', () => {
    const goals = checkGoals(everyGoalMet).slice(4);
    expect(goals.map((g) => g.goal)).toEqual([
      'idle single request after 40 ms idle: overhead p50 ≤ 1.5× 6 idle raw transits',
      'idle single request after 1000 ms idle: overhead p50 ≤ 1.5× 6 idle raw transits (a longer pause, reported)',
    ]);
  });
});
