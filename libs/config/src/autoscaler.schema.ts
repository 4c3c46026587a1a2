import { z } from 'zod';

/**
 * One scaling policy of an HPA `behavior` (autoscaling/v2 HPAScalingPolicy): at most `value`
 * instances (`Pods`) or `value` percent of the size at the period's start (`Percent`) added or
 * removed within any `periodMs`.
 */
const ScalingPolicySchema = z.strictObject({
  type: z.enum(['Pods', 'Percent']),
  value: z.number().int().positive(),
  periodMs: z.number().int().positive().max(1_800_000),
});

/** One direction of an HPA `behavior` (HPAScalingRules), with Kubernetes' field meanings in ms. */
function scalingRules(defaults: { stabilizationWindowMs: number; policies: z.input<typeof ScalingPolicySchema>[] }) {
  return z
    .strictObject({
      /** Recommendations over this window are kept: a scale-up follows their lowest, a scale-down their highest. */
      stabilizationWindowMs: z.number().int().nonnegative().max(3_600_000).default(defaults.stabilizationWindowMs),
      /** `Max`: the policy that allows the largest change; `Min`: the smallest; `Disabled`: none in this direction. */
      selectPolicy: z.enum(['Max', 'Min', 'Disabled']).default('Max'),
      policies: z.array(ScalingPolicySchema).min(1).max(10).default(defaults.policies),
    })
    .prefault({});
}

/** The metrics the autoscaler reads, each from what the bus carries (docs/autoscaling.md). */
export const AUTOSCALER_METRICS = ['queueDepth', 'kvUtilization', 'inFlight'] as const;

/**
 * `autoscaler`: adds and removes worker instances from a metric, with the Kubernetes HPA's
 * algorithm and KEDA's activation (docs/autoscaling.md). Defaults are the HPA's
 * (kube-controller-manager `--horizontal-pod-autoscaler-sync-period` 15 s and `-tolerance` 0.1;
 * the autoscaling/v2 default behavior).
 */
export const AutoscalerSchema = z
  .strictObject({
    enabled: z.boolean().default(false),
    /**
     * `queueDepth`: requests waiting in flow control, all replicas (the Endpoint Picker's "true
     * demand"); `kvUtilization`: the mean KV-cache use of the ready instances; `inFlight`: requests
     * the ready instances hold (running and waiting).
     */
    metric: z.enum(AUTOSCALER_METRICS).default('queueDepth'),
    /**
     * `queueDepth`, `inFlight`: the value per instance (an HPA AverageValue target, KEDA's
     * queue length): desired = ceil(total / target). `kvUtilization`: the utilization to hold
     * (0–1): desired = ceil(ready × mean / target).
     */
    target: z.number().positive().default(4),
    minInstances: z.number().int().nonnegative().max(16_384).default(1),
    /** Default: every instance the worker processes host (worker.processes × worker.instances). */
    maxInstances: z.number().int().positive().max(16_384).optional(),
    /** How often it decides (the HPA's sync period). */
    intervalMs: z.number().int().positive().max(600_000).default(15_000),
    /** No change while the metric is within this fraction of its target. */
    tolerance: z.number().nonnegative().max(1).default(0.1),
    scaleUp: scalingRules({ stabilizationWindowMs: 0, policies: [{ type: 'Percent', value: 100, periodMs: 15_000 }, { type: 'Pods', value: 4, periodMs: 15_000 }] }),
    scaleDown: scalingRules({ stabilizationWindowMs: 300_000, policies: [{ type: 'Percent', value: 100, periodMs: 15_000 }] }),
    /**
     * KEDA, with minInstances 0 only: the pool leaves zero only when the metric is above this
     * (default 0), and goes back to zero after `cooldownMs` at or below it.
     */
    activationTarget: z.number().nonnegative().optional(),
    /** KEDA's cooldownPeriod, with minInstances 0 only: how long the metric must stay at or below activationTarget before the pool goes to zero (default 300 000). */
    cooldownMs: z.number().int().nonnegative().max(3_600_000).optional(),
    /** Port of the autoscaler's /healthz, /readyz and /metrics. */
    port: z.number().int().min(0).max(65535).default(9099),
    host: z.string().min(1).default('127.0.0.1'),
  })
  .prefault({});
export type AutoscalerConfig = z.infer<typeof AutoscalerSchema>;

/** What the autoscaler section needs of the rest of the config to be checked. */
interface ScalableCluster {
  readonly autoscaler: AutoscalerConfig;
  readonly worker: { readonly processes: number; readonly instances: number; readonly initialInstances?: number | undefined; readonly roles?: unknown };
}

/**
 * Settings that cannot take effect are refused, naming the key: a range the workers cannot host,
 * a starting size outside it, scaling a disaggregated pool (which role would grow?), and a pool
 * that goes to zero on a metric only ready instances report (nothing would bring it back).
 */
export function checkAutoscaler(config: ScalableCluster, ctx: z.RefinementCtx): void {
  const { autoscaler, worker } = config;
  const slots = worker.processes * worker.instances;
  if (worker.initialInstances !== undefined && worker.initialInstances > worker.instances) {
    ctx.addIssue({ code: 'custom', path: ['worker', 'initialInstances'], message: `${worker.initialInstances} is more than worker.instances (${worker.instances}), the instances a process hosts` });
  }
  if (!autoscaler.enabled) {
    if (worker.initialInstances !== undefined && worker.initialInstances < worker.instances) {
      ctx.addIssue({ code: 'custom', path: ['worker', 'initialInstances'], message: `parks instances only an autoscaler would start: enable autoscaler, or leave it out` });
    }
    return;
  }
  const max = autoscaler.maxInstances ?? slots;
  if (max > slots) {
    ctx.addIssue({ code: 'custom', path: ['autoscaler', 'maxInstances'], message: `${max} is more than the ${slots} instances the workers host (worker.processes ${worker.processes} × worker.instances ${worker.instances})` });
  }
  if (autoscaler.minInstances > max) {
    ctx.addIssue({ code: 'custom', path: ['autoscaler', 'minInstances'], message: `${autoscaler.minInstances} is more than maxInstances (${max})` });
  }
  const initial = worker.processes * (worker.initialInstances ?? worker.instances);
  if (initial < autoscaler.minInstances || initial > max) {
    ctx.addIssue({ code: 'custom', path: ['worker', 'initialInstances'], message: `the cluster starts with ${initial} instances (worker.processes × worker.initialInstances), outside autoscaler.minInstances…maxInstances (${autoscaler.minInstances}…${max}): set worker.initialInstances` });
  }
  if (worker.roles !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['autoscaler', 'enabled'], message: 'scales aggregated pools only: with worker.roles the autoscaler could not tell which role to grow' });
  }
  if (autoscaler.minInstances === 0 && autoscaler.metric !== 'queueDepth') {
    ctx.addIssue({ code: 'custom', path: ['autoscaler', 'minInstances'], message: `0 needs a metric that sees demand with no instance running (queueDepth): ${autoscaler.metric} comes from the ready instances, so the pool would never leave zero` });
  }
  // KEDA reads both only on the step between zero and one instance (its scaling-deployments doc).
  for (const key of ['activationTarget', 'cooldownMs'] as const) {
    if (autoscaler[key] !== undefined && autoscaler.minInstances > 0) {
      ctx.addIssue({ code: 'custom', path: ['autoscaler', key], message: `acts only between zero and one instance: with minInstances ${autoscaler.minInstances} the pool never goes to zero` });
    }
  }
  if (autoscaler.metric === 'kvUtilization' && autoscaler.target > 1) {
    ctx.addIssue({ code: 'custom', path: ['autoscaler', 'target'], message: `${autoscaler.target} is not a utilization: kvUtilization's target is a fraction in (0, 1]` });
  }
}
