/**
 * The Kubernetes HorizontalPodAutoscaler's arithmetic, as pure functions over instance counts and
 * times in µs. Each follows kube-controller-manager's code (kubernetes/kubernetes):
 * - replica counts from a metric: pkg/controller/podautoscaler/replica_calculator.go
 *   @00067268967ec95a40035bd666374a1caf48dd1a
 *   (`GetExternalPerPodMetricReplicas` for an AverageValue target, `getUsageRatioReplicaCount` for
 *   a Value/Utilization target: the ready pods times the usage ratio, nothing within tolerance);
 * - stabilization and rate limits: pkg/controller/podautoscaler/horizontal.go
 *   @bba5ea7751c6b66b82c4f44ebbcff5411cfcf051
 *   (`stabilizeRecommendationWithBehaviors`, `convertDesiredReplicasWithBehaviorRate`,
 *   `calculateScaleUpLimitWithScalingRules`, `calculateScaleDownLimitWithBehaviors`).
 */

export interface ScalingPolicy {
  readonly type: 'Pods' | 'Percent';
  readonly value: number;
  readonly periodUs: number;
}

export interface ScalingRules {
  readonly stabilizationWindowUs: number;
  readonly selectPolicy: 'Max' | 'Min' | 'Disabled';
  readonly policies: readonly ScalingPolicy[];
}

/** A past scale change: `change` instances added (up) or removed (down) at `atUs`. */
export interface ScaleEvent {
  readonly atUs: number;
  readonly change: number;
}

/** A past recommendation, kept for the stabilization windows. */
export interface Recommendation {
  readonly atUs: number;
  readonly replicas: number;
}

/**
 * An AverageValue target (KEDA's queue length, an HPA external metric per pod): the total over the
 * target, rounded up, unless the per-instance value is within tolerance of the target.
 */
export function replicasForAverageValue(current: number, total: number, target: number, tolerance: number): number {
  if (current > 0 && Math.abs(1 - total / (target * current)) <= tolerance) return current;
  return Math.ceil(total / target);
}

/**
 * A Value or Utilization target (a mean over the ready instances): the ready instances times the
 * usage ratio, rounded up; within tolerance, no change. With none running, the ratio itself.
 */
export function replicasForUsageRatio(current: number, ready: number, value: number, target: number, tolerance: number): number {
  const ratio = value / target;
  if (current === 0) return Math.ceil(ratio);
  if (Math.abs(1 - ratio) <= tolerance) return current;
  return Math.ceil(ratio * ready);
}

/**
 * The stabilized recommendation: a scale-up goes no higher than the lowest recommendation within
 * the scale-up window, a scale-down no lower than the highest within the scale-down window.
 * `history` must already hold the new recommendation.
 */
export function stabilize(current: number, history: readonly Recommendation[], nowUs: number, up: ScalingRules, down: ScalingRules, recommended: number): number {
  let upRecommendation = recommended;
  let downRecommendation = recommended;
  for (const r of history) {
    if (r.atUs > nowUs - up.stabilizationWindowUs) upRecommendation = Math.min(upRecommendation, r.replicas);
    if (r.atUs > nowUs - down.stabilizationWindowUs) downRecommendation = Math.max(downRecommendation, r.replicas);
  }
  let result = current;
  if (result < upRecommendation) result = upRecommendation;
  if (result > downRecommendation) result = downRecommendation;
  return result;
}

/** Instances added (or removed) by the events within the last `periodUs`. */
function changedWithin(events: readonly ScaleEvent[], periodUs: number, nowUs: number): number {
  let sum = 0;
  for (const e of events) if (e.atUs > nowUs - periodUs) sum += e.change;
  return sum;
}

/** The most instances the scale-up policies allow now. */
export function scaleUpLimit(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: ScalingRules, nowUs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
  for (const policy of rules.policies) {
    const periodStart = current - changedWithin(ups, policy.periodUs, nowUs) + changedWithin(downs, policy.periodUs, nowUs);
    const proposed = policy.type === 'Pods' ? periodStart + policy.value : Math.ceil(periodStart * (1 + policy.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** The fewest instances the scale-down policies allow now (Percent truncates, as int32() does). */
export function scaleDownLimit(current: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], rules: ScalingRules, nowUs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  // `Max` allows the largest change, which for a scale-down is the fewest instances.
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
  for (const policy of rules.policies) {
    const periodStart = current + changedWithin(downs, policy.periodUs, nowUs) - changedWithin(ups, policy.periodUs, nowUs);
    const proposed = policy.type === 'Pods' ? periodStart - policy.value : Math.trunc(periodStart * (1 - policy.value / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** The stabilized recommendation held within the rate limits and min/max. */
export function limitRate(current: number, desired: number, min: number, max: number, ups: readonly ScaleEvent[], downs: readonly ScaleEvent[], up: ScalingRules, down: ScalingRules, nowUs: number): number {
  if (desired > current) {
    const allowed = Math.min(max, Math.max(current, scaleUpLimit(current, ups, downs, up, nowUs)));
    return Math.min(desired, allowed);
  }
  if (desired < current) {
    const allowed = Math.max(min, Math.min(current, scaleDownLimit(current, ups, downs, down, nowUs)));
    return Math.max(desired, allowed);
  }
  return Math.min(max, Math.max(min, desired));
}
