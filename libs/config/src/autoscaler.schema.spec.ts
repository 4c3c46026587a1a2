import { describe, expect, it } from 'vitest';
import { ConfigSchema } from './config.schema.js';

const problems = (input: unknown) => {
  const result = ConfigSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};

const scaling = { autoscaler: { enabled: true, minInstances: 1 }, worker: { instances: 8, initialInstances: 1 } };

describe('ConfigSchema: the autoscaler', () => {
  it('takes a pool of 8 starting at 1, with the HPA defaults', () => {
    expect(problems(scaling)).toEqual([]);
    const parsed = ConfigSchema.parse(scaling);
    expect(parsed.autoscaler).toMatchObject({ metric: 'queueDepth', intervalMs: 15_000, tolerance: 0.1, scaleDown: { stabilizationWindowMs: 300_000 }, scaleUp: { stabilizationWindowMs: 0 } });
    expect(parsed.autoscaler.scaleUp.policies).toEqual([{ type: 'Percent', value: 100, periodMs: 15_000 }, { type: 'Pods', value: 4, periodMs: 15_000 }]);
  });

  it('refuses a range the workers cannot host and a start outside the range, naming the key', () => {
    expect(problems({ ...scaling, autoscaler: { enabled: true, maxInstances: 9 } })).toEqual([expect.stringMatching(/^autoscaler\.maxInstances: 9 is more than the 8 instances the workers host/)]);
    expect(problems({ ...scaling, autoscaler: { enabled: true, minInstances: 2 } })).toEqual([expect.stringMatching(/^worker\.initialInstances: the cluster starts with 1 instances/)]);
    expect(problems({ autoscaler: { enabled: true, minInstances: 1 }, worker: { instances: 4, initialInstances: 5 } })[0]).toMatch(/^worker\.initialInstances: 5 is more than worker\.instances/);
  });

  it('refuses parked instances without an autoscaler to start them', () => {
    expect(problems({ worker: { instances: 4, initialInstances: 2 } })).toEqual([expect.stringMatching(/^worker\.initialInstances: parks instances only an autoscaler would start/)]);
  });

  it('refuses zero instances on a metric only running instances report, and a utilization above 1', () => {
    expect(problems({ autoscaler: { enabled: true, minInstances: 0, metric: 'kvUtilization', target: 0.7 }, worker: { instances: 4, initialInstances: 0 } })).toEqual([
      expect.stringMatching(/^autoscaler\.minInstances: 0 needs a metric that sees demand/),
    ]);
    expect(problems({ ...scaling, autoscaler: { enabled: true, metric: 'kvUtilization', target: 70 } })).toEqual([expect.stringMatching(/^autoscaler\.target: 70 is not a utilization/)]);
  });

  it("refuses KEDA's activation and cooldown where the pool never goes to zero", () => {
    expect(problems({ ...scaling, autoscaler: { enabled: true, minInstances: 1, cooldownMs: 60_000 } })).toEqual([expect.stringMatching(/^autoscaler\.cooldownMs: acts only between zero and one instance/)]);
    expect(problems({ autoscaler: { enabled: true, minInstances: 0, activationTarget: 3, cooldownMs: 60_000 }, worker: { instances: 4, initialInstances: 0 } })).toEqual([]);
  });

  it('refuses scaling a disaggregated pool', () => {
    const disaggregated = { worker: { instances: 4, initialInstances: 4, roles: { prefill: 2, decode: 2 } }, router: { disaggregation: { decider: 'dynamo', maxLocalPrefillLength: 512 } }, autoscaler: { enabled: true } };
    expect(problems(disaggregated)).toEqual([expect.stringMatching(/^autoscaler\.enabled: scales aggregated pools only/)]);
  });
});
