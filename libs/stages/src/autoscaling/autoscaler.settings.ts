import { microsFromMillis, type Micros } from '@sluice/contracts';
import type { ScalingRules } from './hpa-rules.js';

/** The keys of the config's `autoscaler` section the core reads (a parsed sluice.yaml fits). */
export interface AutoscalerConfigSection {
  readonly metric: 'queueDepth' | 'kvUtilization' | 'inFlight';
  readonly target: number;
  readonly minInstances: number;
  readonly maxInstances?: number | undefined;
  readonly intervalMs: number;
  readonly tolerance: number;
  readonly scaleUp: ScalingRulesConfig;
  readonly scaleDown: ScalingRulesConfig;
  readonly activationTarget?: number | undefined;
  readonly cooldownMs?: number | undefined;
}

interface ScalingRulesConfig {
  readonly stabilizationWindowMs: number;
  readonly selectPolicy: 'Max' | 'Min' | 'Disabled';
  readonly policies: readonly { readonly type: 'Pods' | 'Percent'; readonly value: number; readonly periodMs: number }[];
}

export interface AutoscalerSettings {
  readonly metric: AutoscalerConfigSection['metric'];
  /** queueDepth and inFlight: a value per instance (AverageValue); kvUtilization: a utilization to hold. */
  readonly target: { readonly kind: 'averageValue' | 'utilization'; readonly value: number };
  readonly minInstances: number;
  readonly maxInstances: number;
  readonly intervalUs: Micros;
  readonly tolerance: number;
  readonly scaleUp: ScalingRules;
  readonly scaleDown: ScalingRules;
  readonly activationTarget: number;
  readonly cooldownUs: Micros;
  /** Instances one worker process hosts, and runs at start. */
  readonly slotsPerWorker: number;
  readonly initialPerWorker: number;
  /** A worker, instance or flow-control report not heard of for this long no longer counts. */
  readonly staleUs: Micros;
  readonly longestPolicyPeriodUs: Micros;
}

function rulesFrom(rules: ScalingRulesConfig): ScalingRules {
  return {
    stabilizationWindowUs: rules.stabilizationWindowMs * 1000,
    selectPolicy: rules.selectPolicy,
    policies: rules.policies.map((p) => ({ type: p.type, value: p.value, periodUs: p.periodMs * 1000 })),
  };
}

/**
 * Settings from the config's `autoscaler` and `worker` sections. `staleMs` is how long silence
 * means gone: the workers' heartbeat timeout as the other stages judge it.
 */
export function autoscalerSettingsFrom(
  config: AutoscalerConfigSection,
  worker: { readonly processes: number; readonly instances: number; readonly initialInstances?: number | undefined },
  staleMs: number,
): AutoscalerSettings {
  const policies = [...config.scaleUp.policies, ...config.scaleDown.policies];
  return {
    metric: config.metric,
    target: { kind: config.metric === 'kvUtilization' ? 'utilization' : 'averageValue', value: config.target },
    minInstances: config.minInstances,
    maxInstances: config.maxInstances ?? worker.processes * worker.instances,
    intervalUs: microsFromMillis(config.intervalMs),
    tolerance: config.tolerance,
    scaleUp: rulesFrom(config.scaleUp),
    scaleDown: rulesFrom(config.scaleDown),
    // KEDA's defaults: activation above 0, back to zero after 300 s.
    activationTarget: config.activationTarget ?? 0,
    cooldownUs: microsFromMillis(config.cooldownMs ?? 300_000),
    slotsPerWorker: worker.instances,
    initialPerWorker: worker.initialInstances ?? worker.instances,
    staleUs: microsFromMillis(staleMs),
    longestPolicyPeriodUs: microsFromMillis(Math.max(...policies.map((p) => p.periodMs))),
  };
}
