import { describe, expect, it } from 'vitest';
import { autoscalerPlots } from './autoscaler-html.js';
import { autoscalerSection, instanceCounts, instanceMs, scaleUpReactions, type AutoscalerDecisionRow, type AutoscalerTimelineInput } from './autoscaler-section.js';
import { renderReportHtml } from './render-html.js';
import { syntheticReport } from './synthetic-report.js';

/** A decision with the fields the section reads; `recommended` defaults to `desired`. */
function decision(atMs: number, current: number, desired: number, recommended = desired): AutoscalerDecisionRow {
  return { atMs, value: recommended * 4, current, ready: current, recommended, desired, rule: 'hpa' };
}

/**
 * One instance at the start; the metric asks for 3 at 5 s but the (hypothetical) stabilization
 * holds it; at 10 s two more start, and register 5 000.5 ms later (a 0.5 ms control hop and a
 * 5 s model load); at 30 s one leaves: it drains 0.5 ms later and deregisters at 31 s.
 */
const STEP: AutoscalerTimelineInput = {
  metric: 'queueDepth',
  initialInstances: 1,
  decisions: [decision(5_000, 1, 1, 3), decision(10_000, 1, 3), decision(20_000, 3, 3), decision(30_000, 3, 2)],
  lifecycle: [
    { instanceId: 'w-r0', type: 'register', atMs: 0 },
    { instanceId: 'w-r1', type: 'register', atMs: 15_000.5 },
    { instanceId: 'w-r2', type: 'register', atMs: 15_000.5 },
    { instanceId: 'w-r2', type: 'drain', atMs: 30_000.5 },
    { instanceId: 'w-r2', type: 'deregister', atMs: 31_000 },
  ],
};

describe('instanceCounts', () => {
  it('counts ready, starting (desired − ready), draining and desired at each change, as a reader of the events would', () => {
    expect(instanceCounts(STEP)).toEqual([
      { atMs: 0, ready: 1, starting: 0, draining: 0, desired: 1 },
      { atMs: 10_000, ready: 1, starting: 2, draining: 0, desired: 3 },
      { atMs: 15_000.5, ready: 3, starting: 0, draining: 0, desired: 3 },
      { atMs: 30_000, ready: 3, starting: 0, draining: 0, desired: 2 },
      { atMs: 30_000.5, ready: 2, starting: 0, draining: 1, desired: 2 },
      { atMs: 31_000, ready: 2, starting: 0, draining: 0, desired: 2 },
    ]);
  });

  it('integrates instance-time over a window: a starting or draining instance costs as a ready one', () => {
    const points = instanceCounts(STEP);
    // 0–10 s: 1; 10–30.5 s: 3 (two starting, then ready); 30.5–31 s: 3 (one draining); 31–40 s: 2.
    expect(instanceMs(points, 0, 40_000)).toBeCloseTo(1 * 10_000 + 3 * 20_500 + 3 * 500 + 2 * 9_000, 9);
    // A window that starts late and ends early counts only its own part.
    expect(instanceMs(points, 12_000, 14_000)).toBe(3 * 2_000);
  });
});

describe('scaleUpReactions', () => {
  it('times each scale-up from its decision, and from the first decision that saw the demand, to its last instance registered', () => {
    expect(scaleUpReactions(STEP)).toEqual([{ decidedAtMs: 10_000, demandAtMs: 5_000, added: 2, routableAtMs: 15_000.5, reactionMs: 5_000.5, fromDemandMs: 10_000.5 }]);
  });

  it('a scale-down before the instances loaded cancels them: that scale-up never became routable', () => {
    const cancelled: AutoscalerTimelineInput = { ...STEP, decisions: [decision(10_000, 1, 3), decision(12_000, 3, 1)], lifecycle: STEP.lifecycle.slice(0, 1) };
    expect(scaleUpReactions(cancelled)).toEqual([{ decidedAtMs: 10_000, demandAtMs: 10_000, added: 2, routableAtMs: null, reactionMs: null, fromDemandMs: null }]);
  });

  it('an instance that comes back after it left is a new join, not one of the initial instances', () => {
    const again: AutoscalerTimelineInput = {
      metric: 'queueDepth',
      initialInstances: 2,
      decisions: [decision(10_000, 2, 1), decision(20_000, 1, 2)],
      lifecycle: [
        { instanceId: 'w-r0', type: 'register', atMs: 0 },
        { instanceId: 'w-r1', type: 'register', atMs: 0 },
        { instanceId: 'w-r1', type: 'drain', atMs: 10_000.5 },
        { instanceId: 'w-r1', type: 'deregister', atMs: 10_001 },
        { instanceId: 'w-r1', type: 'register', atMs: 25_000.5 },
      ],
    };
    expect(scaleUpReactions(again)).toMatchObject([{ decidedAtMs: 20_000, routableAtMs: 25_000.5, reactionMs: 5_000.5 }]);
  });
});

describe('autoscalerSection', () => {
  const report = syntheticReport();
  const section = autoscalerSection(STEP, report.summary);

  it('divides the run’s good requests and output tokens by the instance-hours of the run’s window', () => {
    const { startMs, endMs, durationMs } = report.summary.window;
    const hours = instanceMs(section.instances, startMs, endMs) / 3_600_000;
    expect(section.instanceHours).toBeCloseTo(hours, 12);
    expect(section.goodPerInstanceHour).toBeCloseTo(report.summary.goodput.good / hours, 6);
    expect(section.outputTokensPerInstanceHour).toBeCloseTo((report.summary.overall.throughput.outputTokensPerSec * durationMs) / 1000 / hours, 6);
  });

  it('has no per-instance-hour figures without instance-time', () => {
    const empty = autoscalerSection({ ...STEP, decisions: [], lifecycle: [] }, report.summary);
    expect(empty.instanceHours).toBe(0);
    expect(empty.goodPerInstanceHour).toBeNull();
  });

  it('report.html draws the offered load and the instances over time, and lists the scale-ups', () => {
    const html = renderReportHtml({ ...report, autoscaler: section });
    expect(html).toContain('<svg class="plot" data-plot="autoscaler-arrivals"');
    expect(html).toContain('<svg class="plot" data-plot="autoscaler-instances"');
    expect(html).toContain('id="autoscaler-scale-ups"');
    const plots = autoscalerPlots(section, report.records, 40_000);
    const instances = plots.find((p) => p.name === 'autoscaler-instances')!;
    expect(instances.series.map((s) => s.name)).toEqual(['desired', 'ready', 'starting', 'draining']);
    // Each series holds its last value to the end given (s).
    expect(instances.series[0]!.points.at(-1)).toEqual({ x: 40, y: 2 });
    expect(renderReportHtml(report)).not.toContain('autoscaler');
  });
});
