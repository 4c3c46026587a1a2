import { describe, expect, it } from 'vitest';
import { StepTimes } from './step-times.js';

describe('StepTimes', () => {
  it('numbers steps in order and reads runs of them back, past its first growth', () => {
    const times = new StepTimes();
    for (let step = 0; step < 3_000; step++) expect(times.push(step / 4)).toBe(step);
    const out: number[] = new Array<number>(6).fill(1);
    let at = times.copyRun(out, 1, 1_022, 4);
    at = times.copyRun(out, at, 2_999, 1);
    expect(times.copyRun(out, at, 5, 0)).toBe(6);
    expect(out).toEqual([1, 255.5, 255.75, 256, 256.25, 749.75]);
  });

  it('refuses a run that reaches a step not yet logged', () => {
    const times = new StepTimes();
    times.push(1);
    times.push(2);
    expect(() => times.copyRun([], 0, 1, 2)).toThrow(RangeError);
    expect(() => times.copyRun([], 0, -1, 1)).toThrow(RangeError);
  });
});
