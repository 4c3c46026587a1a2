import { describe, expect, it } from 'vitest';
import { limitRate, replicasForAverageValue, replicasForUsageRatio, scaleDownLimit, scaleUpLimit, stabilize, type ScalingRules } from './hpa-rules.js';

const S = 1_000_000;
/** The autoscaling/v2 defaults: up at once, by 100% or 4 pods per 15 s (the larger); down after 300 s, by 100% per 15 s. */
const UP: ScalingRules = { stabilizationWindowUs: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodUs: 15 * S }, { type: 'Pods', value: 4, periodUs: 15 * S }] };
const DOWN: ScalingRules = { stabilizationWindowUs: 300 * S, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodUs: 15 * S }] };

describe('the HPA recommendation from a metric', () => {
  it('AverageValue: ceil(total / target), as KEDA queue length: 17 queued at 4 per instance on 2 → 5', () => {
    expect(replicasForAverageValue(2, 17, 4, 0.1)).toBe(5);
  });

  it('AverageValue within tolerance keeps the size: 8.7 on 2 at 4 each is a ratio 1.0875 ≤ 1.1', () => {
    expect(replicasForAverageValue(2, 8.7, 4, 0.1)).toBe(2);
    // Just outside: 8.9 / 8 = 1.1125 → ceil(8.9 / 4) = 3.
    expect(replicasForAverageValue(2, 8.9, 4, 0.1)).toBe(3);
  });

  it('AverageValue with nothing queued recommends zero (the floor comes later)', () => {
    expect(replicasForAverageValue(3, 0, 4, 0.1)).toBe(0);
  });

  it('Utilization: ceil(ready × value / target): KV at 0.9 on 3 ready against 0.6 → 5', () => {
    expect(replicasForUsageRatio(3, 3, 0.9, 0.6, 0.1)).toBe(5);
  });

  it('Utilization counts the ready instances, not those still loading: 2 of 4 ready at 0.9 / 0.6 → 3', () => {
    expect(replicasForUsageRatio(4, 2, 0.9, 0.6, 0.1)).toBe(3);
  });

  it('Utilization within tolerance keeps the size: 0.65 / 0.6 = 1.083', () => {
    expect(replicasForUsageRatio(3, 3, 0.65, 0.6, 0.1)).toBe(3);
  });
});

describe('stabilization windows', () => {
  it('a scale-down follows the highest recommendation of the window', () => {
    const history = [
      { atUs: 0, replicas: 6 },
      { atUs: 100 * S, replicas: 2 },
      { atUs: 200 * S, replicas: 3 },
    ];
    // At 250 s every one is within 300 s: max 6, so 6 stays.
    expect(stabilize(6, history, 250 * S, UP, DOWN, 3)).toBe(6);
    // At 301 s the 6 has left the window: the highest is 3.
    expect(stabilize(6, history, 301 * S, UP, DOWN, 3)).toBe(3);
  });

  it('a scale-up follows the lowest recommendation of its window (0 s: the newest alone)', () => {
    expect(stabilize(2, [{ atUs: 0, replicas: 2 }, { atUs: 15 * S, replicas: 7 }], 15 * S, UP, DOWN, 7)).toBe(7);
    const slowUp = { ...UP, stabilizationWindowUs: 60 * S };
    expect(stabilize(2, [{ atUs: 0, replicas: 4 }, { atUs: 15 * S, replicas: 7 }], 15 * S, slowUp, DOWN, 7)).toBe(4);
  });
});

describe('rate limits', () => {
  it('scale-up: the larger of +100% and +4 per 15 s: from 1 → 5, from 10 → 20', () => {
    expect(scaleUpLimit(1, [], [], UP, 0)).toBe(5);
    expect(scaleUpLimit(10, [], [], UP, 0)).toBe(20);
  });

  it('scale-up counts what was added within each period from its start: 3 added 10 s ago on 5 → start 2 → max(4, 6) = 6', () => {
    expect(scaleUpLimit(5, [{ atUs: 0, change: 3 }], [], UP, 10 * S)).toBe(6);
    // 16 s later the event has left the 15 s period.
    expect(scaleUpLimit(5, [{ atUs: 0, change: 3 }], [], UP, 16 * S)).toBe(10);
  });

  it('Percent rounds a scale-up up and a scale-down down (truncation)', () => {
    const tenPercent: ScalingRules = { stabilizationWindowUs: 0, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 10, periodUs: 15 * S }] };
    expect(scaleUpLimit(3, [], [], tenPercent, 0)).toBe(4); // ceil(3.3)
    expect(scaleDownLimit(3, [], [], tenPercent, 0)).toBe(2); // trunc(2.7)
  });

  it('Min picks the policy with the smallest change, Disabled allows none', () => {
    expect(scaleUpLimit(10, [], [], { ...UP, selectPolicy: 'Min' }, 0)).toBe(14);
    expect(scaleUpLimit(10, [], [], { ...UP, selectPolicy: 'Disabled' }, 0)).toBe(10);
    expect(scaleDownLimit(10, [], [], { ...DOWN, selectPolicy: 'Disabled' }, 0)).toBe(10);
  });

  it('limitRate holds a jump within the limit and within min/max', () => {
    expect(limitRate(1, 12, 1, 8, [], [], UP, DOWN, 0)).toBe(5);
    expect(limitRate(6, 12, 1, 8, [], [], UP, DOWN, 0)).toBe(8);
    expect(limitRate(6, 0, 2, 8, [], [], UP, DOWN, 0)).toBe(2);
    const onePodDown: ScalingRules = { stabilizationWindowUs: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodUs: 60 * S }] };
    expect(limitRate(6, 2, 1, 8, [], [], UP, onePodDown, 0)).toBe(5);
    expect(limitRate(5, 2, 1, 8, [], [{ atUs: 0, change: 1 }], UP, onePodDown, 30 * S)).toBe(5);
  });
});
