import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { spreadPending } from './spread-pending.js';

describe('spreadPending', () => {
  it('fills the shortest queues first, to a common level', () => {
    // 3 + 2 = 5 and 5 + 0 = 5: the two short queues reach the third's 5, the last 3 go one each, the earliest first.
    expect(spreadPending([3, 5, 5], 2)).toEqual([5, 5, 5]);
    expect(spreadPending([3, 5, 5], 5)).toEqual([6, 6, 6]);
    expect(spreadPending([0, 10], 4)).toEqual([4, 10]);
    // 7 over 3 queues: level 2, and the one left over goes to the queue that was shortest.
    expect(spreadPending([2, 0, 2], 3)).toEqual([2, 3, 2]);
  });

  it('leaves the queues as they are with nothing pending or no instance', () => {
    expect(spreadPending([4, 1], 0)).toEqual([4, 1]);
    expect(spreadPending([], 7)).toEqual([]);
  });

  it('places every pending request, never lowers a queue, and leaves the shortest as high as any balanced placement would', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(50), { minLength: 1, maxLength: 12 }), fc.nat(200), (depths, pending) => {
        const after = spreadPending(depths, pending);
        const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
        expect(sum(after) - sum(depths)).toBe(pending);
        after.forEach((a, i) => expect(a).toBeGreaterThanOrEqual(depths[i]!));
        // Greedy one by one to the shortest queue gives the same multiset.
        const greedy = [...depths];
        for (let k = 0; k < pending; k++) greedy[greedy.indexOf(Math.min(...greedy))]! += 1;
        expect([...after].sort((a, b) => a - b)).toEqual(greedy.sort((a, b) => a - b));
      }),
    );
  });
});
