import { describe, expect, it } from 'vitest';
import type { Point } from './series.js';
import { thinSeries } from './thin.js';

const series = (points: Point[]) => ({ name: 's', points });

describe('thinSeries', () => {
  it('keeps a series that fits as it is', () => {
    const s = series([{ x: 0, y: 1 }, { x: 1, y: 2 }]);
    expect(thinSeries(s, 4)).toBe(s);
  });

  it('keeps the lowest and highest point of each run, in order, so peaks and dips survive', () => {
    // 12 points, at most 6: three runs of four.
    const ys = [5, 9, 1, 5, /**/ 5, 5, 5, 5, /**/ 3, 0, 7, 2];
    const thinned = thinSeries(series(ys.map((y, x) => ({ x, y }))), 6);
    expect(thinned.points).toEqual([
      { x: 1, y: 9 },
      { x: 2, y: 1 },
      { x: 4, y: 5 },
      { x: 9, y: 0 },
      { x: 10, y: 7 },
    ]);
  });

  it('never keeps more than the limit, and keeps the extremes of the whole series', () => {
    const points = Array.from({ length: 100_001 }, (_, x) => ({ x, y: Math.sin(x / 97) * 100 + (x === 77_777 ? 1_000 : 0) }));
    const thinned = thinSeries(series(points), 4_000);
    expect(thinned.points.length).toBeLessThanOrEqual(4_000);
    const highest = (ps: readonly Point[]) => ps.reduce((m, p) => Math.max(m, p.y), -Infinity);
    const lowest = (ps: readonly Point[]) => ps.reduce((m, p) => Math.min(m, p.y), Infinity);
    expect(highest(thinned.points)).toBe(1_000 + Math.sin(77_777 / 97) * 100);
    expect(lowest(thinned.points)).toBe(lowest(points));
    expect(thinned.points.every((p, i) => i === 0 || p.x > thinned.points[i - 1]!.x)).toBe(true);
  });
});
