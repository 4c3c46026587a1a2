import { describe, expect, it } from 'vitest';
import { spreadInstances } from './spread-instances.js';

describe('spreading instances over worker processes', () => {
  it('adds to the process running the fewest, takes from the one running the most', () => {
    expect(spreadInstances([1, 1], 4, 5)).toEqual([3, 2]);
    expect(spreadInstances([3, 2], 4, 2)).toEqual([1, 1]);
  });

  it('never past what each hosts, and never below zero', () => {
    expect(spreadInstances([4, 1], 4, 10)).toEqual([4, 4]);
    expect(spreadInstances([2, 1], 4, -3)).toEqual([0, 0]);
  });

  it('keeps the sum equal to the desired count', () => {
    for (let desired = 0; desired <= 12; desired++) expect(spreadInstances([1, 0, 2], 4, desired).reduce((a, b) => a + b, 0)).toBe(desired);
  });
});
