import { describe, expect, it } from 'vitest';
import { RecentPublishes } from './recent-publishes.js';

describe('RecentPublishes', () => {
  it('gives back what was published within the window, oldest first, once', () => {
    const recent = new RecentPublishes(1_000);
    recent.add('a', '1', undefined, 0);
    recent.add('b', '2', undefined, 500);
    recent.add('c', '3', undefined, 1_400);
    // The window reaches back to 450: a (at 0) has left it.
    expect(recent.take(1_450).map((m) => m.subject)).toEqual(['b', 'c']);
    expect(recent.take(1_450)).toEqual([]);
  });

  it('keeps only the window while many are published (bounded memory)', () => {
    const recent = new RecentPublishes(100);
    for (let t = 0; t < 100_000; t++) recent.add('s', 'x', undefined, t);
    expect(recent.size).toBeLessThanOrEqual(101);
    expect(recent.take(99_999)).toHaveLength(101);
  });
});
