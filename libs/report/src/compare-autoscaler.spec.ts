import { describe, expect, it } from 'vitest';
import { compareAutoscaler } from './compare-autoscaler.js';
import { autoscalerSection } from './autoscaler-section.js';
import { syntheticReport } from './synthetic-report.js';

const { summary } = syntheticReport();
/** A pool of `initial` instances that grows to `to` at 1 s, registered at `routableMs`. */
const grown = (initial: number, to: number, routableMs: number) =>
  autoscalerSection(
    {
      metric: 'queueDepth',
      initialInstances: initial,
      decisions: [{ atMs: 1000, value: 9, current: initial, ready: initial, recommended: to, desired: to, rule: 'hpa' }],
      lifecycle: [
        ...Array.from({ length: initial }, (_, i) => ({ instanceId: `w-r${i}`, type: 'register' as const, atMs: 0 })),
        ...Array.from({ length: to - initial }, (_, i) => ({ instanceId: `w-r${initial + i}`, type: 'register' as const, atMs: routableMs })),
      ],
    },
    summary,
  );

describe('compareAutoscaler', () => {
  it('sets instance-hours, goodput per instance-hour and the scale-ups of each run side by side, with the change against the first', () => {
    const a = grown(1, 2, 3000);
    const b = grown(1, 3, 2000);
    const rows = compareAutoscaler([{ autoscaler: a }, { autoscaler: b }, {}]);
    expect(rows.map((r) => r.metric)).toEqual(['instance-hours', 'good / instance-hour', 'output tok / instance-hour', 'scale-ups', 'scale-up reaction max ms']);
    const hours = rows[0]!;
    expect(hours.values).toEqual([a.instanceHours, b.instanceHours, null]);
    expect(hours.deltasPct[1]).toBeCloseTo(((b.instanceHours - a.instanceHours) / a.instanceHours) * 100, 9);
    expect(hours.deltasPct[2]).toBeNull();
    expect(rows[4]!.values).toEqual([2000, 1000, null]);
  });

  it('adds nothing when no run was autoscaled', () => {
    expect(compareAutoscaler([{}, {}])).toEqual([]);
  });
});
