import type { RunRecord } from '@sluice/metrics';
import { latencyOverTime, loadPerWorker, outcomesPerSecond, queuePerPriority, ttftCdfBySloClass, type Series } from './series.js';
import { MAX_POINTS_PER_SERIES, thinSeries } from './thin.js';

/** What the inline script needs to draw one `<svg data-plot="name">`. */
export interface PlotSpec {
  readonly name: string;
  readonly title: string;
  /** How the series were computed, shown under the title. */
  readonly note: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** 'step': a step line per series (y holds until the next point); 'points': a point cloud per series. */
  readonly kind: 'step' | 'points';
  /** Lower bound of the y axis (the data's minimum when absent). */
  readonly yMin?: number;
  readonly series: readonly Series[];
  /** Shaded x ranges behind the series (a chaos run's fault windows); from = to draws a line. */
  readonly bands?: readonly PlotBand[];
}

export interface PlotBand {
  readonly fromX: number;
  readonly toX: number;
  readonly label: string;
}

/** The report's plots, in display order; a series of more than MAX_POINTS_PER_SERIES points is thinned, and its note says so. */
export function buildPlots(records: readonly RunRecord[]): PlotSpec[] {
  return unthinnedPlots(records).map((plot) => {
    if (plot.series.every((s) => s.points.length <= MAX_POINTS_PER_SERIES)) return plot;
    const note = `${plot.note} Thinned to ${MAX_POINTS_PER_SERIES.toLocaleString('en-US')} points a series: each of ${(MAX_POINTS_PER_SERIES / 2).toLocaleString('en-US')} runs of consecutive points keeps its lowest and highest.`;
    return { ...plot, note, series: plot.series.map((s) => thinSeries(s)) };
  });
}

function unthinnedPlots(records: readonly RunRecord[]): PlotSpec[] {
  return [
    {
      name: 'ttft-cdf',
      title: 'TTFT CDF per SLO class',
      note: 'Fraction of requests with TTFT ≤ x, over requests that got a first token (any outcome).',
      xLabel: 'TTFT (ms)',
      yLabel: 'fraction of requests',
      kind: 'step',
      yMin: 0,
      series: ttftCdfBySloClass(records),
    },
    {
      name: 'latency-over-time',
      title: 'Latency over time',
      note: 'One point per request at its arrival time: TTFT (requests that got a first token), E2E (completed requests).',
      xLabel: 'arrival (s since start)',
      yLabel: 'latency (ms)',
      kind: 'points',
      yMin: 0,
      series: latencyOverTime(records),
    },
    {
      name: 'outcomes-over-time',
      title: 'Outcomes over time',
      note: 'Requests ending in each one-second bucket, one line per outcome (in-flight requests have no end and are not shown).',
      xLabel: 'time (s since start)',
      yLabel: 'requests ending per second',
      kind: 'step',
      yMin: 0,
      series: outcomesPerSecond(records),
    },
    {
      name: 'worker-load',
      title: 'Load per worker',
      note:
        'Requests each instance was serving. Completed requests only; the worker interval is approximated as ' +
        'arrival + admission + flow queue + routing time up to the request’s end (the client has no worker-side timestamps).',
      xLabel: 'time (s since start)',
      yLabel: 'requests in service',
      kind: 'step',
      yMin: 0,
      series: loadPerWorker(records),
    },
    {
      name: 'queue-per-priority',
      title: 'Flow-control queue per priority',
      note:
        'Requests waiting in flow control per priority band, from [arrival + admission, + flow queue time]. Only requests ' +
        'that got through (completed) carry timings, so requests rejected or dropped from the queue are not counted: a lower bound.',
      xLabel: 'time (s since start)',
      yLabel: 'requests queued',
      kind: 'step',
      yMin: 0,
      series: queuePerPriority(records),
    },
  ];
}
