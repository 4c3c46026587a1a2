import { describe, expect, it } from 'vitest';
import { diurnalRateShape } from './diurnal.js';

describe('a diurnal cycle as a change of time', () => {
  const shape = diurnalRateShape({ period: 120, peak_to_trough_ratio: 4, peak_at: 90 }, 10);

  it('peaks at peak_at, r times its trough, around the mean', () => {
    // a = (4 − 1) / (4 + 1) = 0.6: from 4 to 16 requests/s around 10.
    expect(shape.rateAt(90_000)).toBeCloseTo(16, 12);
    expect(shape.rateAt(30_000)).toBeCloseTo(4, 12);
    expect(shape.rateAt(90_000) / shape.rateAt(30_000)).toBeCloseTo(4, 12);
    expect(shape.rateAt(0)).toBeCloseTo(10, 12);
    expect(shape.rateAt(90_000 + 120_000)).toBeCloseTo(16, 12);
    for (let t = 0; t < 240_000; t += 1_000) {
      expect(shape.rateAt(t)).toBeGreaterThanOrEqual(4 - 1e-9);
      expect(shape.rateAt(t)).toBeLessThanOrEqual(16 + 1e-9);
    }
  });

  it('offers the mean over each whole period: Λ(k·period) = k·period', () => {
    expect(shape.operationalMs(0)).toBe(0);
    for (const k of [1, 2, 7, 1000]) expect(shape.operationalMs(k * 120_000)).toBeCloseTo(k * 120_000, 6);
  });

  it('has Λ′ = rate / mean (a numerical derivative)', () => {
    for (const t of [1_000, 29_000, 61_500, 90_000, 117_000]) {
      const h = 1e-3;
      expect((shape.operationalMs(t + h) - shape.operationalMs(t - h)) / (2 * h)).toBeCloseTo(shape.rateAt(t) / 10, 6);
    }
  });

  it('inverts Λ to about the float’s precision (1 ns at most), over a day of cycles', () => {
    let worst = 0;
    for (let u = 0; u < 86_400_000; u += 777.7) worst = Math.max(worst, Math.abs(shape.operationalMs(shape.workloadMs(u)) - u));
    // In the workload's time the slope is at least 1 − a = 0.4, so |Δt| ≤ |Δu| / 0.4: far under a µs.
    expect(worst / 0.4).toBeLessThan(1e-6);
  });

  it('is strictly increasing, and the same for the same u', () => {
    let last = -1;
    for (let u = 0; u < 360_000; u += 13.1) {
      const t = shape.workloadMs(u);
      expect(t).toBeGreaterThan(last);
      expect(shape.workloadMs(u)).toBe(t);
      last = t;
    }
  });

  it('is the identity at a ratio of 1, and refuses a mean that is not > 0 or a negative time', () => {
    const flat = diurnalRateShape({ period: 60, peak_to_trough_ratio: 1 }, 3);
    expect([0, 1.5, 59_999.25].map((u) => flat.workloadMs(u))).toEqual([0, 1.5, 59_999.25]);
    expect(flat.rateAt(12_345)).toBe(3);
    expect(() => diurnalRateShape({ period: 60, peak_to_trough_ratio: 2 }, 0)).toThrow(/> 0/);
    expect(() => shape.workloadMs(-0.5)).toThrow(/>= 0/);
  });

  it('starts at its peak without peak_at', () => {
    const noon = diurnalRateShape({ period: 60, peak_to_trough_ratio: 3 }, 8);
    expect(noon.rateAt(0)).toBeCloseTo(12, 12);
    expect(noon.rateAt(30_000)).toBeCloseTo(4, 12);
  });
});
