import { describe, expect, it } from 'vitest';
import { micros, type HeldFrame, type Stage } from '@sluice/contracts';
import { Custody } from './custody.js';
import { endReasonWhenSpent, resubmitPauseMs, resumeStageAfter } from './migration-rules.js';

const ms = (n: number) => micros(n * 1000);
const held = (requestId: string, stage: Stage, holder: string, attempt = 0): HeldFrame => ({ type: 'held', requestId, attempt, stage, holder });

function custody(migrationLimit = 3) {
  return new Custody({ heartbeatTimeoutUs: ms(3_000), migrationLimit });
}

describe('Custody', () => {
  it('follows the holder down the pipeline and never back (frames of one attempt can arrive out of order)', () => {
    const c = custody();
    c.open('r');
    c.held(held('r', 'router', 'router-1'), ms(0));
    c.held(held('r', 'flow', 'flow-1'), ms(0));
    expect(c.holderOf('r')).toEqual({ holder: 'router-1', stage: 'router' });
    c.held(held('r', 'worker', 'w-r0'), ms(1));
    expect(c.holderOf('r')).toEqual({ holder: 'w-r0', stage: 'worker' });
  });

  it('reports a request lost once its holder is silent for longer than the heartbeat timeout, and only once', () => {
    const c = custody();
    c.open('a');
    c.open('b');
    c.held(held('a', 'worker', 'w-r0'), ms(0));
    c.held(held('b', 'worker', 'w-r1'), ms(0));
    c.heard('w-r1', ms(2_500));
    expect(c.lost(ms(3_000))).toEqual([]);
    expect(c.lost(ms(3_001))).toEqual([{ requestId: 'a', attempt: 0, holder: 'w-r0', stage: 'worker' }]);
    expect(c.lost(ms(3_002))).toEqual([]);
    expect(c.lost(ms(5_501))).toEqual([{ requestId: 'b', attempt: 0, holder: 'w-r1', stage: 'worker' }]);
  });

  it('re-submits the current attempt up to the limit; a second report of the same loss is ignored', () => {
    const c = custody(2);
    c.open('r');
    expect(c.migrate('r', 0)).toEqual({ kind: 'resubmit', attempt: 1, migrations: 1 });
    expect(c.migrate('r', 0)).toEqual({ kind: 'ignored' });
    expect(c.isCurrent('r', 0)).toBe(false);
    expect(c.isCurrent('r', 1)).toBe(true);
    expect(c.holderOf('r')).toEqual({ holder: undefined, stage: undefined });
    expect(c.migrate('r', 1)).toEqual({ kind: 'resubmit', attempt: 2, migrations: 2 });
    expect(c.migrate('r', 2)).toEqual({ kind: 'exhausted', migrations: 2 });
  });

  it('ignores held frames of a stale attempt', () => {
    const c = custody();
    c.open('r');
    c.migrate('r', 0);
    c.held(held('r', 'worker', 'w-old', 0), ms(0));
    expect(c.holderOf('r')?.holder).toBeUndefined();
  });

  it('judges nobody while its own connection is down, and counts everyone as heard when it is back', () => {
    const c = custody();
    c.open('r');
    c.held(held('r', 'flow', 'flow-1'), ms(0));
    c.suspend();
    expect(c.lost(ms(10_000))).toEqual([]);
    expect(c.resume(ms(10_000))).toEqual([{ requestId: 'r', attempt: 0, stage: 'flow', reason: 'bus_reconnected' }]);
    expect(c.lost(ms(12_000))).toEqual([]);
    expect(c.lost(ms(13_001))).toHaveLength(1);
  });

  it('resumes a lost request where it stood: the queue it was in, or routing for a worker', () => {
    expect(['admission', 'flow', 'router', 'worker', undefined].map((s) => resumeStageAfter(s as Stage | undefined))).toEqual(['admission', 'flow', 'router', 'router', 'admission']);
  });

  it('ends a request whose migrations are spent as lost with its worker or stage, or with the next stage unavailable', () => {
    expect(endReasonWhenSpent('worker_lost', 'router', 'router')).toBe('worker_lost');
    expect(endReasonWhenSpent('worker_draining', undefined, 'router')).toBe('worker_lost');
    expect(endReasonWhenSpent('bus_reconnected', 'worker', 'router')).toBe('worker_lost');
    expect(endReasonWhenSpent('stage_shutdown', 'flow', 'flow')).toBe('stage_lost');
    expect(endReasonWhenSpent('next_unavailable', 'admission', 'flow')).toBe('flow_unavailable');
    expect(endReasonWhenSpent('next_unavailable', 'flow', 'router')).toBe('router_unavailable');
    expect(endReasonWhenSpent('next_unavailable', 'router', 'router')).toBe('worker_unreachable');
  });

  it('pauses before re-submitting a request handed back for want of the next stage: 100 ms doubling to 1 s', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => resubmitPauseMs('next_unavailable', n))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(resubmitPauseMs('worker_lost', 1)).toBe(0);
  });
});
