import { z } from 'zod';
import { DurationSchema, QuantitySchema, microsFromMillis } from '@sluice/contracts';
import { GLOBAL_STRICT_FAIRNESS } from './fairness/global-strict/global-strict.fairness.js';
import type { BandSettings, FlowQueuesSettings } from './flow-queues.js';
import type { FlowRegistrySettings } from './flow-registry.js';
import { FCFS_ORDERING } from './ordering/fcfs/fcfs.ordering.js';
import type { SaturationDetector } from './ports.js';
import {
  FAIRNESS_POLICY_NAMES,
  ORDERING_POLICY_NAMES,
  SATURATION_DETECTOR_PARAMS,
  type FlowControlRegistry,
} from './registry.js';
import { CONCURRENCY_DETECTOR } from './saturation/concurrency/concurrency.detector.js';
import { UTILIZATION_DETECTOR } from './saturation/utilization/utilization.detector.js';

/**
 * Flow control's config, in the shape of the Endpoint Picker's `flowControl` section: global
 * limits and TTL, then per priority band its limits and policy refs. Quantities take plain
 * integers or Kubernetes forms (`1k`, `10Gi`); durations Go forms (`60s`) or milliseconds.
 */
const bandFields = {
  /** Queued requests the band may hold (0 = no limit of its own). */
  maxRequests: QuantitySchema.default(0),
  /** Queued request bytes the band may hold (0 = no limit of its own). */
  maxBytes: QuantitySchema.default(0),
  fairnessPolicyRef: z.enum(FAIRNESS_POLICY_NAMES).default(GLOBAL_STRICT_FAIRNESS),
  orderingPolicyRef: z.enum(ORDERING_POLICY_NAMES).default(FCFS_ORDERING),
};

export const PriorityBandConfigSchema = z.strictObject({ priority: z.number().int(), ...bandFields });

const SaturationDetectorConfigSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal(UTILIZATION_DETECTOR), parameters: SATURATION_DETECTOR_PARAMS[UTILIZATION_DETECTOR].prefault({}) }),
  z.strictObject({ type: z.literal(CONCURRENCY_DETECTOR), parameters: SATURATION_DETECTOR_PARAMS[CONCURRENCY_DETECTOR].prefault({}) }),
]);

export const FlowControlConfigSchema = z.strictObject({
  /** Queued requests over all bands (0 = no limit). */
  maxRequests: QuantitySchema.default(0),
  /** Queued request bytes over all bands (0 = no limit). */
  maxBytes: QuantitySchema.default(0),
  /**
   * How long a request may wait in a queue before it is evicted with 503. 10 s by default (the
   * shared design said 60 s, as long as the gateway's own deadline): under overload a client then
   * learns within 10 s that it was not served, instead of after a minute.
   */
  defaultRequestTTL: DurationSchema.pipe(z.number().positive({ message: 'must be longer than 0' })).default(10_000),
  /**
   * Flows (tenant × priority) tracked at once (0 = no limit). Past it, a new flow takes the place
   * of the one idle longest, and is refused with `too_many_flows` (429) only when every tracked
   * flow has requests queued. Every tracked flow costs memory and a few metric series; 1,000 keeps
   * `/metrics` within a few MB (10,000 tenant ids once made a 61 MB page). **sluice**: the
   * Endpoint Picker has no such cap.
   */
  maxFlows: QuantitySchema.default(1_000),
  /**
   * A flow with nothing queued for this long is forgotten, with its metric series: the Endpoint
   * Picker's `FlowGCTimeout`, and its default (5m).
   */
  flowGCTimeout: DurationSchema.pipe(z.number().positive({ message: 'must be longer than 0' })).default(300_000),
  /** Limits and policies of a band that `priorityBands` does not list. */
  defaultPriorityBand: z.strictObject(bandFields).prefault({}),
  priorityBands: z
    .array(PriorityBandConfigSchema)
    .default([])
    .superRefine((bands, ctx) => {
      const seen = new Set<number>();
      bands.forEach((band, i) => {
        if (seen.has(band.priority)) ctx.addIssue({ code: 'custom', path: [i, 'priority'], message: `priority ${band.priority} is listed twice` });
        seen.add(band.priority);
      });
    }),
  saturationDetector: SaturationDetectorConfigSchema.prefault({ type: UTILIZATION_DETECTOR }),
});
export type FlowControlConfig = z.infer<typeof FlowControlConfigSchema>;
export type FlowControlConfigInput = z.input<typeof FlowControlConfigSchema>;

/** Resolves a parsed config's plugin refs through the registry: what the queues and the gate need. */
export function flowControlFrom(
  config: FlowControlConfig,
  registry: FlowControlRegistry,
): { settings: FlowQueuesSettings; flows: FlowRegistrySettings; detector: SaturationDetector } {
  const band = (b: FlowControlConfig['defaultPriorityBand']): BandSettings => ({
    maxRequests: b.maxRequests,
    maxBytes: b.maxBytes,
    fairness: registry.fairness.create(b.fairnessPolicyRef, {}),
    ordering: registry.ordering.create(b.orderingPolicyRef, {}),
  });
  return {
    settings: {
      maxRequests: config.maxRequests,
      maxBytes: config.maxBytes,
      // The config speaks ms (a Go duration like `60s`); the queues keep µs.
      defaultRequestTtlUs: microsFromMillis(config.defaultRequestTTL),
      bands: new Map(config.priorityBands.map((b) => [b.priority, band(b)])),
      defaultBand: band(config.defaultPriorityBand),
    },
    flows: { maxFlows: config.maxFlows, gcTimeoutUs: microsFromMillis(config.flowGCTimeout) },
    detector: registry.saturation.create(config.saturationDetector.type, config.saturationDetector.parameters),
  };
}
