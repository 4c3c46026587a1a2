import { describe, expect, it } from 'vitest';
import { createFaultRegistry, type Fault } from '@sluice/workload';
import { Timeline, timelineSteps, type TimelineClock, type TimelineStep } from './timeline.js';

/** A clock whose sleep moves time on at once: the schedule runs through without waiting. */
class FakeClock implements TimelineClock {
  t = 0;
  now = (): number => this.t;
  sleep = (ms: number): Promise<void> => {
    this.t += ms;
    return Promise.resolve();
  };
}

/** A clock whose sleep never ends by itself: time moves only when the test says. */
class StoppedClock implements TimelineClock {
  t = 0;
  now = (): number => this.t;
  sleep = (): Promise<void> => new Promise<void>(() => undefined);
}

const FAULT_REGISTRY = createFaultRegistry();
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const label = (s: TimelineStep) => `${s.fault}:${s.phase}`;

const FAULTS: Fault[] = [
  { atMs: 100, action: 'pause', target: 'router', forMs: 50 },
  { atMs: 120, action: 'kill', target: 'worker-1' },
  { atMs: 300, action: 'restart-nats', forMs: 400 },
  { atMs: 100, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 0, jitterMs: 0, dropPercent: 5, duplicatePercent: 0, forMs: 10 },
];

describe('timeline', () => {
  it('orders the steps by time, scenario order at one instant; a NATS restart and a kill have no undo', () => {
    expect(timelineSteps(FAULTS, FAULT_REGISTRY).map((s) => `${s.atMs} ${label(s)}`)).toEqual(['100 0:start', '100 3:start', '110 3:undo', '120 1:start', '150 0:undo', '300 2:start']);
  });

  it('fires each step at t0 + its offset on the run clock', async () => {
    const clock = new FakeClock();
    clock.t = 7;
    const executed: string[] = [];
    const timeline = new Timeline(timelineSteps(FAULTS, FAULT_REGISTRY), clock, (step) => {
      executed.push(`${clock.now()} ${label(step)}`);
      return Promise.resolve(`did ${label(step)}`);
    });
    timeline.start(10);
    await turn();
    const results = await timeline.finish();
    expect(executed).toEqual(['110 0:start', '110 3:start', '120 3:undo', '130 1:start', '160 0:undo', '310 2:start']);
    expect(results.map((r) => [label(r.step), r.firedAtMs, r.detail])).toEqual([
      ['0:start', 110, 'did 0:start'],
      ['3:start', 110, 'did 3:start'],
      ['3:undo', 120, 'did 3:undo'],
      ['1:start', 130, 'did 1:start'],
      ['0:undo', 160, 'did 0:undo'],
      ['2:start', 310, 'did 2:start'],
    ]);
  });

  it('lets an undo wait for its own slow start, but not the next fault', async () => {
    const clock = new FakeClock();
    let releasePause: () => void = () => undefined;
    const executed: string[] = [];
    const faults: Fault[] = [
      { atMs: 0, action: 'pause', target: 'router', forMs: 10 },
      { atMs: 20, action: 'kill', target: 'worker-1' },
    ];
    const timeline = new Timeline(timelineSteps(faults, FAULT_REGISTRY), clock, (step) => {
      executed.push(label(step));
      if (label(step) !== '0:start') return Promise.resolve('');
      return new Promise<string>((resolve) => (releasePause = () => resolve('paused')));
    });
    timeline.start(0);
    await turn();
    expect(executed).toEqual(['0:start', '1:start']);
    clock.t = 50;
    releasePause();
    const results = await timeline.finish();
    expect(executed).toEqual(['0:start', '1:start', '0:undo']);
    expect(results.find((r) => label(r.step) === '0:undo')?.firedAtMs).toBe(50);
  });

  it('on finish, skips the faults not yet started and undoes the started ones at once', async () => {
    const clock = new StoppedClock();
    const executed: string[] = [];
    const faults: Fault[] = [
      { atMs: 0, action: 'worker-faults', slowdown: 3, forMs: 5_000 },
      { atMs: 1_000, action: 'kill', target: 'worker-1' },
    ];
    const timeline = new Timeline(timelineSteps(faults, FAULT_REGISTRY), clock, (step) => {
      executed.push(`${clock.now()} ${label(step)}`);
      return Promise.resolve('');
    });
    timeline.start(0);
    await turn();
    clock.t = 400; // the workload ended here, long before the kill and the undo
    const results = await timeline.finish();
    expect(executed).toEqual(['0 0:start', '400 0:undo']);
    expect(results.find((r) => label(r.step) === '1:start')).toEqual({ step: { atMs: 1_000, fault: 1, phase: 'start' }, firedAtMs: null, skipped: 'the workload ended first' });
  });

  it('records a fault that could not be done, and still undoes it', async () => {
    const clock = new FakeClock();
    const timeline = new Timeline(timelineSteps([{ atMs: 5, action: 'pause', target: 'router', forMs: 5 }], FAULT_REGISTRY), clock, (step) =>
      step.phase === 'start' ? Promise.reject(new Error('no process "router"')) : Promise.resolve('continued'),
    );
    timeline.start(0);
    await turn();
    const results = await timeline.finish();
    expect(results.map((r) => [label(r.step), r.error, r.detail])).toEqual([
      ['0:start', 'no process "router"', undefined],
      ['0:undo', undefined, 'continued'],
    ]);
  });

  it('finished before it started (no request was sent): every fault is skipped', async () => {
    const timeline = new Timeline(timelineSteps([{ atMs: 5, action: 'kill', target: 'router' }], FAULT_REGISTRY), new FakeClock(), () => Promise.resolve(''));
    expect((await timeline.finish()).map((r) => r.skipped)).toEqual(['the workload ended first']);
  });
});
