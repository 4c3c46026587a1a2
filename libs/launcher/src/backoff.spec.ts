import { describe, expect, it } from 'vitest';
import { decideRestart, DEFAULT_RESTART_POLICY, NO_RESTARTS, restartDelayMs, type RestartHistory } from './backoff.js';

const upFor = (ms: number) => ({ wasReady: true, readyForMs: ms });
const neverReady = { wasReady: false, readyForMs: 0 };

describe('restartDelayMs', () => {
  it('is 250 ms doubling to a cap of 8 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((attempt) => restartDelayMs(attempt))).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(restartDelayMs(5_000)).toBe(8_000); // 2^4999 is Infinity; the cap holds
  });

  it('follows a given policy', () => {
    expect(restartDelayMs(3, { ...DEFAULT_RESTART_POLICY, initialDelayMs: 10, maxDelayMs: 30 })).toBe(30);
  });

  it('rejects attempts that are not 1, 2, 3, …', () => {
    for (const attempt of [0, -1, 1.5, Number.NaN]) expect(() => restartDelayMs(attempt)).toThrow(RangeError);
  });
});

describe('decideRestart', () => {
  it('backs off on a process that crashes again soon after each restart', () => {
    let history: RestartHistory = NO_RESTARTS;
    const delays: number[] = [];
    for (let i = 0; i < 7; i++) {
      const decision = decideRestart(history, upFor(1_000));
      expect(decision.kind).toBe('restart');
      if (decision.kind !== 'restart') return;
      expect(decision.attempt).toBe(i + 1);
      delays.push(decision.delayMs);
      history = decision.history;
    }
    expect(delays).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 8_000]);
  });

  it('starts over at 250 ms once the process stayed ready for 30 s', () => {
    const history: RestartHistory = { attempts: 6, startFailures: 0 };
    expect(decideRestart(history, upFor(29_999))).toMatchObject({ kind: 'restart', attempt: 7, delayMs: 8_000 });
    expect(decideRestart(history, upFor(30_000))).toMatchObject({ kind: 'restart', attempt: 1, delayMs: 250, history: { attempts: 1, startFailures: 0 } });
  });

  it('gives up after 5 restarts in a row that exit before they are ready', () => {
    // The first exit comes after readiness (a first start that fails fails the cluster start).
    let decision = decideRestart(NO_RESTARTS, upFor(100));
    const failures: number[] = [];
    while (decision.kind === 'restart') {
      failures.push(decision.history.startFailures);
      decision = decideRestart(decision.history, neverReady);
    }
    expect(failures).toEqual([0, 1, 2, 3, 4]);
    expect(decision).toMatchObject({ kind: 'give-up', startFailures: 5 });
  });

  it('counts failed starts only in a row: a restart that became ready clears them', () => {
    const history: RestartHistory = { attempts: 4, startFailures: 4 };
    expect(decideRestart(history, upFor(10))).toMatchObject({ kind: 'restart', attempt: 5, history: { startFailures: 0 } });
    expect(decideRestart(history, neverReady)).toMatchObject({ kind: 'give-up' });
  });

  it('never resets the delay on a process that was not ready, however long it ran', () => {
    expect(decideRestart({ attempts: 3, startFailures: 1 }, { wasReady: false, readyForMs: 0 })).toMatchObject({ kind: 'restart', attempt: 4, delayMs: 2_000 });
  });
});
