import { describe, expect, it } from 'vitest';
import { jainIndex } from './jain.js';

describe('jainIndex', () => {
  it('is 1 for equal shares', () => {
    expect(jainIndex([1, 1])).toBe(1);
    expect(jainIndex([7, 7, 7])).toBe(1);
  });

  it('falls for skewed shares', () => {
    expect(jainIndex([1, 0])).toBe(0.5);
    expect(jainIndex([3, 1])).toBeCloseTo(0.8, 12); // 16 / (2·10)
    expect(jainIndex([1, 0, 0, 0])).toBe(0.25);
  });

  it('is 1 for all zeros, a single tenant, or none', () => {
    expect(jainIndex([0, 0, 0])).toBe(1);
    expect(jainIndex([42])).toBe(1);
    expect(jainIndex([])).toBe(1);
  });
});
