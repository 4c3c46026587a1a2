import { describe, expect, it } from 'vitest';
import { stagesDuration, stagesMeanRate, stagesRateShape } from './stages.js';

const STEP = [
  { rate: 10, duration: 20 },
  { rate: 40, duration: 10 },
  { rate: 0, duration: 5 },
  { rate: 10, duration: 15 },
];

describe('load stages as a change of time', () => {
  const shape = stagesRateShape(STEP);

  it('runs operational time at the stages’ time-weighted mean', () => {
    expect(stagesDuration(STEP)).toBe(50);
    expect(stagesMeanRate(STEP)).toBe((10 * 20 + 40 * 10 + 0 + 10 * 15) / 50);
    expect(shape.meanRate).toBe(15);
    // Over all the stages, operational time and workload time end together.
    expect(shape.operationalMs(50_000)).toBeCloseTo(50_000, 9);
  });

  it('gives each stage’s rate over [start, end), and 0 outside', () => {
    expect([0, 19_999.999, 20_000, 29_999, 30_000, 34_999, 35_000, 49_999, 50_000, -1].map((t) => shape.rateAt(t))).toEqual([10, 10, 40, 40, 0, 0, 10, 10, 0, 0]);
  });

  it('maps the boundaries exactly, and a stage’s operational span at its own slope', () => {
    // Stage boundaries in operational time: 10·20/15, then +40·10/15, a pause, then +10·15/15 s.
    const bounds = [0, 200 / 15, 600 / 15, 600 / 15, 50].map((s) => s * 1000);
    expect([0, 20_000, 30_000, 35_000, 50_000].map((t) => shape.operationalMs(t))).toEqual(bounds.map((u) => expect.closeTo(u, 9)));
    expect(shape.workloadMs(0)).toBe(0);
    expect(shape.workloadMs(bounds[1]!)).toBe(20_000);
    // The pause spans no operational time: the first instant after the 40/s stage is the 10/s stage's start.
    expect(shape.workloadMs(bounds[2]!)).toBe(35_000);
    expect(shape.workloadMs(bounds[2]! - 1e-6)).toBeLessThan(30_000);
    // Inside a stage, 1 ms of operational time is mean/rate ms of the workload's.
    expect(shape.workloadMs(bounds[1]! + 150)).toBeCloseTo(20_000 + (150 * 15) / 40, 9);
    expect(shape.workloadMs(150)).toBeCloseTo(225, 9);
  });

  it('inverts its own map everywhere outside the pause, and places nothing inside it', () => {
    for (let u = 0; u < 50_000; u += 97.3) {
      const t = shape.workloadMs(u);
      expect(shape.operationalMs(t)).toBeCloseTo(u, 6);
      expect(t >= 30_000 && t < 35_000, `${u} → ${t}, inside the pause`).toBe(false);
    }
  });

  it('has no workload time past the last stage', () => {
    expect(shape.workloadMs(50_000)).toBe(Infinity);
    expect(shape.workloadMs(1e9)).toBe(Infinity);
    expect(shape.operationalMs(1e9)).toBeCloseTo(50_000, 9);
    // A trailing pause ends the arrivals where the last stage with a rate ends (mean 2.5/s: the
    // 5/s stage spans 20 s of operational time).
    const trailing = stagesRateShape([{ rate: 5, duration: 10 }, { rate: 0, duration: 10 }]);
    expect(trailing.workloadMs(19_999)).toBeCloseTo(9_999.5, 9);
    expect(trailing.workloadMs(20_000)).toBe(Infinity);
  });

  it('refuses what has no rate, and a negative operational time', () => {
    expect(() => stagesRateShape([])).toThrow(/no stages/);
    expect(() => stagesRateShape([{ rate: 0, duration: 3 }])).toThrow(/rate 0/);
    expect(() => shape.workloadMs(-1)).toThrow(/>= 0/);
  });
});
