import { describe, expect, it } from 'vitest';
import { StepTimes } from './step-times.js';

describe('StepTimes', () => {
  it('numbers steps in order and reads runs of them back, past its first growth', () => {
    const times = new StepTimes();
    for (let step = 0; step < 3_000; step++) expect(times.push(step / 4)).toBe(step);
    const out: number[] = [1];
    times.appendRun(out, 1_022, 4);
    times.appendRun(out, 2_999, 1);
    times.appendRun(out, 5, 0);
    expect(out).toEqual([1, 255.5, 255.75, 256, 256.25, 749.75]);
  });

  it('refuses a run that reaches a step not yet logged', () => {
    const times = new StepTimes();
    times.push(1);
    times.push(2);
    expect(() => times.appendRun([], 1, 2)).toThrow(RangeError);
    expect(() => times.appendRun([], -1, 1)).toThrow(RangeError);
  });
});
