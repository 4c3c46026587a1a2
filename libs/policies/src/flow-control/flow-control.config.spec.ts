import { describeZodError, microsFromMillis } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { instanceView, poolSignals } from '../testing/builders.js';
import { FlowControlConfigSchema, flowControlFrom, type FlowControlConfigInput } from './flow-control.config.js';
import { FlowQueues } from './flow-queues.js';
import {
  FAIRNESS_POLICY_NAMES,
  ORDERING_POLICY_NAMES,
  SATURATION_DETECTOR_NAMES,
  SATURATION_DETECTOR_PARAMS,
  createFlowControlRegistry,
} from './registry.js';

const errorsOf = (input: FlowControlConfigInput | Record<string, unknown>) => {
  const result = FlowControlConfigSchema.safeParse(input);
  if (result.success) throw new Error('expected the config to be rejected');
  return describeZodError(result.error, 'flowControl');
};

describe('flow control registry', () => {
  it('registers exactly the names config allows, and every detector has a params schema', () => {
    const registry = createFlowControlRegistry();
    expect(registry.fairness.names()).toEqual([...FAIRNESS_POLICY_NAMES]);
    expect(registry.ordering.names()).toEqual([...ORDERING_POLICY_NAMES]);
    expect(registry.saturation.names()).toEqual([...SATURATION_DETECTOR_NAMES]);
    expect(Object.keys(SATURATION_DETECTOR_PARAMS).sort()).toEqual([...SATURATION_DETECTOR_NAMES].sort());
    expect(() => registry.ordering.create('lifo-ordering-policy', {})).toThrow(
      'unknown ordering policy "lifo-ordering-policy"; allowed: fcfs-ordering-policy, edf-ordering-policy, slo-deadline-ordering-policy',
    );
  });
});

describe('FlowControlConfigSchema', () => {
  it('defaults: no queue limits, 1,000 flows forgotten after 5 min idle, 10 s TTL, global-strict + FCFS bands, the utilization detector at 5 / 0.8 / 200 ms', () => {
    expect(FlowControlConfigSchema.parse({})).toEqual({
      maxRequests: 0,
      maxBytes: 0,
      maxFlows: 1_000,
      flowGCTimeout: 300_000,
      defaultRequestTTL: 10_000,
      defaultPriorityBand: { maxRequests: 0, maxBytes: 0, fairnessPolicyRef: 'global-strict-fairness-policy', orderingPolicyRef: 'fcfs-ordering-policy' },
      priorityBands: [],
      saturationDetector: { type: 'utilization-detector', parameters: { queueDepthThreshold: 5, kvCacheUtilThreshold: 0.8, metricsStalenessThreshold: 200 } },
    });
    // A band listed with its priority alone takes the same defaults.
    expect(FlowControlConfigSchema.parse({ priorityBands: [{ priority: 4 }] }).priorityBands).toEqual([
      { priority: 4, maxRequests: 0, maxBytes: 0, fairnessPolicyRef: 'global-strict-fairness-policy', orderingPolicyRef: 'fcfs-ordering-policy' },
    ]);
    expect(FlowControlConfigSchema.parse({ saturationDetector: { type: 'concurrency-detector' } }).saturationDetector).toEqual({
      type: 'concurrency-detector',
      parameters: { concurrencyMode: 'requests', maxConcurrency: 100, headroom: 0 },
    });
  });

  it('parses Kubernetes quantities and Go durations as the Endpoint Picker writes them', () => {
    const config = FlowControlConfigSchema.parse({
      maxRequests: '1k',
      maxBytes: '10Gi',
      defaultRequestTTL: '60s',
      defaultPriorityBand: { maxBytes: '512Mi', maxRequests: 250 },
      priorityBands: [{ priority: -2, maxRequests: '2k', maxBytes: '1G' }],
      saturationDetector: { type: 'utilization-detector', parameters: { metricsStalenessThreshold: '250ms' } },
    });
    expect(config.maxRequests).toBe(1_000);
    expect(config.maxBytes).toBe(10 * 2 ** 30);
    expect(config.defaultRequestTTL).toBe(60_000);
    expect(config.defaultPriorityBand).toMatchObject({ maxBytes: 512 * 2 ** 20, maxRequests: 250 });
    expect(config.priorityBands[0]).toMatchObject({ maxRequests: 2_000, maxBytes: 1e9 });
    expect(config.saturationDetector.parameters).toMatchObject({ metricsStalenessThreshold: 250 });
    expect(FlowControlConfigSchema.parse({ defaultRequestTTL: '1m30s' }).defaultRequestTTL).toBe(90_000);
    expect(FlowControlConfigSchema.parse({ defaultRequestTTL: 2_500 }).defaultRequestTTL).toBe(2_500);
  });

  it('rejects bad quantities, durations and a zero TTL, naming the field', () => {
    expect(errorsOf({ maxBytes: 'lots' })).toEqual([
      'flowControl.maxBytes: "lots" is not a quantity: use a whole number, optionally with a suffix (k, M, G, T, Ki, Mi, Gi, Ti), e.g. 1k or 10Gi',
    ]);
    expect(errorsOf({ priorityBands: [{ priority: 1, maxRequests: -5 }] })[0]).toMatch(/^flowControl\.priorityBands\[0\]\.maxRequests: /);
    expect(errorsOf({ defaultRequestTTL: 'soon' })[0]).toMatch(/^flowControl\.defaultRequestTTL: "soon" is not a duration/);
    expect(errorsOf({ defaultRequestTTL: '0s' })).toEqual(['flowControl.defaultRequestTTL: must be longer than 0']);
    expect(errorsOf({ maxFlows: -1 })[0]).toMatch(/^flowControl\.maxFlows: /);
    expect(errorsOf({ maxFlows: 'many' })[0]).toMatch(/^flowControl\.maxFlows: "many" is not a quantity/);
    expect(errorsOf({ flowGCTimeout: '0s' })).toEqual(['flowControl.flowGCTimeout: must be longer than 0']);
    expect(errorsOf({ flowGCTimeout: 'later' })[0]).toMatch(/^flowControl\.flowGCTimeout: "later" is not a duration/);
  });

  it('rejects an unknown policy ref, naming the path and listing the allowed values', () => {
    const [fairness] = errorsOf({ priorityBands: [{ priority: 4 }, { priority: 3, fairnessPolicyRef: 'weighted-fair-queuing' }] });
    expect(fairness).toMatch(/^flowControl\.priorityBands\[1\]\.fairnessPolicyRef: /);
    for (const name of FAIRNESS_POLICY_NAMES) expect(fairness).toContain(name);
    const [ordering] = errorsOf({ defaultPriorityBand: { orderingPolicyRef: 'lifo' } });
    expect(ordering).toMatch(/^flowControl\.defaultPriorityBand\.orderingPolicyRef: /);
    for (const name of ORDERING_POLICY_NAMES) expect(ordering).toContain(name);
    const [detector] = errorsOf({ saturationDetector: { type: 'queue-length-detector' } });
    expect(detector).toMatch(/^flowControl\.saturationDetector\.type: /);
    for (const name of SATURATION_DETECTOR_NAMES) expect(detector).toContain(name);
  });

  it('rejects a priority listed twice, naming the second', () => {
    expect(errorsOf({ priorityBands: [{ priority: 4 }, { priority: -2 }, { priority: 4 }] })).toEqual(['flowControl.priorityBands[2].priority: priority 4 is listed twice']);
  });

  it('rejects unknown keys (strict), at every level', () => {
    expect(errorsOf({ maxRequest: 5 })).toEqual(['flowControl: Unrecognized key: "maxRequest"']);
    expect(errorsOf({ priorityBands: [{ priority: 1, fairness: 'x' }] })).toEqual(['flowControl.priorityBands[0]: Unrecognized key: "fairness"']);
  });

  it('validates detector parameters by the detector type, at saturationDetector.parameters.<key>', () => {
    expect(errorsOf({ saturationDetector: { type: 'utilization-detector', parameters: { queueDepthThreshold: 'five', kvCacheUtilThreshold: 1.5 } } })).toEqual([
      'flowControl.saturationDetector.parameters.queueDepthThreshold: Invalid input: expected number, received string',
      'flowControl.saturationDetector.parameters.kvCacheUtilThreshold: Too big: expected number to be <=1',
    ]);
    expect(errorsOf({ saturationDetector: { type: 'concurrency-detector', parameters: { maxConcurrency: 0 } } })).toEqual([
      'flowControl.saturationDetector.parameters.maxConcurrency: Too small: expected number to be >0',
    ]);
    // A parameter of the other detector is not silently accepted.
    expect(errorsOf({ saturationDetector: { type: 'utilization-detector', parameters: { headroom: 0.1 } } })).toEqual([
      'flowControl.saturationDetector.parameters: Unrecognized key: "headroom"',
    ]);
    expect(errorsOf({ saturationDetector: { type: 'concurrency-detector', parameters: { queueDepthThreshold: 5 } } })).toEqual([
      'flowControl.saturationDetector.parameters: Unrecognized key: "queueDepthThreshold"',
    ]);
  });
});

describe('flowControlFrom', () => {
  it('resolves the refs through the registry into queue settings and a detector', () => {
    const config = FlowControlConfigSchema.parse({
      maxRequests: '1k',
      maxBytes: '1Mi',
      defaultRequestTTL: '30s',
      maxFlows: '2k',
      flowGCTimeout: '90s',
      defaultPriorityBand: { maxRequests: 7, orderingPolicyRef: 'slo-deadline-ordering-policy' },
      priorityBands: [
        { priority: 4, fairnessPolicyRef: 'round-robin-fairness-policy', orderingPolicyRef: 'edf-ordering-policy', maxBytes: '64Ki' },
        { priority: -2, maxRequests: 50 },
      ],
      saturationDetector: { type: 'concurrency-detector', parameters: { maxConcurrency: 4, headroom: 0.5 } },
    });
    const { settings, flows, detector } = flowControlFrom(config, createFlowControlRegistry());
    expect(flows).toEqual({ maxFlows: 2_000, gcTimeoutUs: 90_000_000 });
    expect(settings.maxRequests).toBe(1_000);
    expect(settings.maxBytes).toBe(2 ** 20);
    expect(settings.defaultRequestTtlUs).toBe(30_000_000);
    expect([...settings.bands.keys()]).toEqual([4, -2]);
    const high = settings.bands.get(4)!;
    expect([high.maxRequests, high.maxBytes, high.fairness.name, high.ordering.name]).toEqual([0, 65_536, 'round-robin-fairness-policy', 'edf-ordering-policy']);
    const low = settings.bands.get(-2)!;
    expect([low.maxRequests, low.maxBytes, low.fairness.name, low.ordering.name]).toEqual([50, 0, 'global-strict-fairness-policy', 'fcfs-ordering-policy']);
    const fallback = settings.defaultBand;
    expect([fallback.maxRequests, fallback.fairness.name, fallback.ordering.name]).toEqual([7, 'global-strict-fairness-policy', 'slo-deadline-ordering-policy']);
    // The detector carries the parameters: 2 endpoints · 4 · 1.5 = 12.
    expect(detector.name).toBe('concurrency-detector');
    const endpoints = [instanceView({ instanceId: 'a' }), instanceView({ instanceId: 'b' })];
    expect(detector.saturation(poolSignals({ endpoints, inFlightRequests: 6 }))).toBe(0.5);
    expect(detector.saturation(poolSignals({ endpoints, inFlightRequests: 12 }))).toBe(1);
    // And the settings drive real queues: the TTL and the default band's limit apply.
    const queues = new FlowQueues<null>(settings);
    const outcome = queues.enqueue({ id: 'a', flow: { fairnessId: 'x', priority: 1 }, byteSize: 10, tokens: 1, arrivalUs: microsFromMillis(40), payload: null }, microsFromMillis(100));
    expect(outcome).toMatchObject({ ok: true, item: { ttlDeadlineUs: 30_040_000 } });
  });

  it('builds the default utilization detector from an empty config', () => {
    const { detector, settings } = flowControlFrom(FlowControlConfigSchema.parse({}), createFlowControlRegistry());
    expect(detector.name).toBe('utilization-detector');
    expect(detector.saturation(poolSignals({ endpoints: [instanceView({ instanceId: 'a', queueDepth: 2, kvUtilization: 0.2, snapshotAgeUs: microsFromMillis(10) })] }))).toBeCloseTo(0.4, 12);
    expect(settings.bands.size).toBe(0);
    expect(settings.defaultBand.fairness.name).toBe('global-strict-fairness-policy');
  });
});
