import type { Point, Series } from './series.js';

/**
 * The most points a series keeps in report.html. A plot is ~1,000 px wide, so more points draw
 * nothing more; a million-request twin run gave series of up to two million points (a 175 MB page
 * that a browser draws as as many SVG elements).
 */
export const MAX_POINTS_PER_SERIES = 4_000;

/**
 * A series of at most `max` points with the same envelope: its points, in order, cut into max/2
 * runs of consecutive points, of which each keeps its lowest and its highest point (in their
 * order). Peaks, dips and outliers stay; what goes is what lies between them on the same pixel.
 * A series that fits is returned as it is.
 */
export function thinSeries(series: Series, max = MAX_POINTS_PER_SERIES): Series {
  const { points } = series;
  if (points.length <= max) return series;
  const runs = Math.floor(max / 2);
  const kept: Point[] = [];
  for (let r = 0; r < runs; r++) {
    const start = Math.floor((r * points.length) / runs);
    const end = Math.floor(((r + 1) * points.length) / runs);
    let low = start;
    let high = start;
    for (let i = start + 1; i < end; i++) {
      if (points[i]!.y < points[low]!.y) low = i;
      if (points[i]!.y > points[high]!.y) high = i;
    }
    kept.push(points[Math.min(low, high)]!);
    if (high !== low) kept.push(points[Math.max(low, high)]!);
  }
  return { name: series.name, points: kept };
}
