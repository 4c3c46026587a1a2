import { describe, expect, it } from 'vitest';
import { gaugeAutoscalerSection, type AutoscalerGaugeSample } from './autoscaler-gauges.js';
import { instanceMs } from './autoscaler-section.js';
import { syntheticReport } from './synthetic-report.js';

/** A reading each second: `desired`, `ready`, `starting`, decisions so far. */
const at = (s: number, desired: number, ready: number, starting: number, decisions: number, value = 0): AutoscalerGaugeSample => ({ atMs: s * 1000, desired, ready, starting, value, decisions });

/** One instance; a decision at 2 s asks for 3 (read at 3 s); they are ready at 6 s; a decision read at 8 s asks for 2. */
const READINGS = [at(0, 1, 1, 0, 0), at(1, 1, 1, 0, 0), at(2, 1, 1, 0, 0), at(3, 3, 1, 2, 1, 40), at(4, 3, 1, 2, 1), at(5, 3, 1, 2, 2, 30), at(6, 3, 3, 0, 2), at(7, 3, 3, 0, 2), at(8, 2, 2, 0, 3, 0)];

describe('gaugeAutoscalerSection', () => {
  const report = syntheticReport();
  const section = gaugeAutoscalerSection('queueDepth', READINGS, 1000, report.summary);

  it('is a decision where the counter grew, at that reading, with the size before it as current', () => {
    expect(section.source).toBe('gauges');
    expect(section.decisions).toEqual([
      { atMs: 3000, value: 40, current: 1, ready: 1, desired: 3 },
      { atMs: 5000, value: 30, current: 3, ready: 1, desired: 3 },
      { atMs: 8000, value: 0, current: 3, ready: 3, desired: 2 },
    ]);
  });

  it('keeps a point where the counts changed, with no draining count (the gauges do not say)', () => {
    expect(section.instances).toEqual([
      { atMs: 0, ready: 1, starting: 0, desired: 1 },
      { atMs: 3000, ready: 1, starting: 2, desired: 3 },
      { atMs: 6000, ready: 3, starting: 0, desired: 3 },
      { atMs: 8000, ready: 2, starting: 0, desired: 2 },
    ]);
    const { startMs, endMs } = report.summary.window;
    expect(section.instanceSeconds).toBeCloseTo(instanceMs(section.instances, startMs, endMs) / 1000, 9);
  });

  it('times a scale-up to the first reading whose ready count reached what it asked for', () => {
    expect(section.scaleUps).toEqual([{ decidedAtMs: 3000, demandAtMs: 3000, added: 2, routableAtMs: 6000, reactionMs: 3000, fromDemandMs: 3000 }]);
  });

  it('a scale-up cancelled before it was ready is never routable', () => {
    const cancelled = gaugeAutoscalerSection('queueDepth', [at(0, 1, 1, 0, 0), at(1, 3, 1, 2, 1), at(2, 1, 1, 0, 2), at(3, 1, 1, 0, 2)], 1000, report.summary);
    expect(cancelled.scaleUps).toMatchObject([{ decidedAtMs: 1000, routableAtMs: null, reactionMs: null }]);
  });
});
