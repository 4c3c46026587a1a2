import { PolicyRegistry } from '../registry.js';
import { createGlobalStrictFairness, GLOBAL_STRICT_FAIRNESS } from './fairness/global-strict/global-strict.fairness.js';
import { createRoundRobinFairness, ROUND_ROBIN_FAIRNESS } from './fairness/round-robin/round-robin.fairness.js';
import { createEdfOrdering, EDF_ORDERING } from './ordering/edf/edf.ordering.js';
import { createFcfsOrdering, FCFS_ORDERING } from './ordering/fcfs/fcfs.ordering.js';
import { createSloDeadlineOrdering, SLO_DEADLINE_ORDERING } from './ordering/slo-deadline/slo-deadline.ordering.js';
import type { FairnessPolicy, OrderingPolicy, SaturationDetector } from './ports.js';
import { CONCURRENCY_DETECTOR, ConcurrencyDetectorParamsSchema, createConcurrencyDetector } from './saturation/concurrency/concurrency.detector.js';
import { createUtilizationDetector, UTILIZATION_DETECTOR, UtilizationDetectorParamsSchema } from './saturation/utilization/utilization.detector.js';

/** Every built-in plugin by the type name config uses (the Endpoint Picker's names). */
export const FAIRNESS_POLICY_NAMES = [GLOBAL_STRICT_FAIRNESS, ROUND_ROBIN_FAIRNESS] as const;
export const ORDERING_POLICY_NAMES = [FCFS_ORDERING, EDF_ORDERING, SLO_DEADLINE_ORDERING] as const;
export const SATURATION_DETECTOR_NAMES = [UTILIZATION_DETECTOR, CONCURRENCY_DETECTOR] as const;
export type FairnessPolicyName = (typeof FAIRNESS_POLICY_NAMES)[number];
export type OrderingPolicyName = (typeof ORDERING_POLICY_NAMES)[number];
export type SaturationDetectorName = (typeof SATURATION_DETECTOR_NAMES)[number];

/** Each detector's parameter schema, so config fails at start-up naming the bad key. */
export const SATURATION_DETECTOR_PARAMS = {
  [UTILIZATION_DETECTOR]: UtilizationDetectorParamsSchema,
  [CONCURRENCY_DETECTOR]: ConcurrencyDetectorParamsSchema,
} as const;

/** One registry per plugin interface; an instance (a Nest provider, the twin's object), never global. */
export interface FlowControlRegistry {
  readonly fairness: PolicyRegistry<FairnessPolicy, unknown>;
  readonly ordering: PolicyRegistry<OrderingPolicy, unknown>;
  readonly saturation: PolicyRegistry<SaturationDetector, unknown>;
}

export function registerBuiltInFlowControlPlugins(registry: FlowControlRegistry): FlowControlRegistry {
  registry.fairness.register(GLOBAL_STRICT_FAIRNESS, createGlobalStrictFairness).register(ROUND_ROBIN_FAIRNESS, createRoundRobinFairness);
  registry.ordering
    .register(FCFS_ORDERING, createFcfsOrdering)
    .register(EDF_ORDERING, createEdfOrdering)
    .register(SLO_DEADLINE_ORDERING, createSloDeadlineOrdering);
  registry.saturation.register(UTILIZATION_DETECTOR, createUtilizationDetector).register(CONCURRENCY_DETECTOR, createConcurrencyDetector);
  return registry;
}

export function createFlowControlRegistry(): FlowControlRegistry {
  return registerBuiltInFlowControlPlugins({
    fairness: new PolicyRegistry('fairness policy'),
    ordering: new PolicyRegistry('ordering policy'),
    saturation: new PolicyRegistry('saturation detector'),
  });
}
