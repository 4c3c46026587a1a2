import { z } from 'zod';
import type { AdmissionPolicy } from '../admission-policy.js';
import { sloBudgetGroupOf } from '../slo-predictive/slo-predictive.policy.js';

export const SLO_GATED = 'slo-gated';

export const SloGatedParamsSchema = z
  .strictObject({
    /** Standard requests are admitted while the average load per instance is below this (requests). */
    standardThreshold: z.number().positive().default(10),
    /** Sheddable requests are admitted while it is below this: tighter, so they go first. */
    sheddableThreshold: z.number().positive().default(5),
  })
  .refine((p) => p.sheddableThreshold <= p.standardThreshold, {
    message: 'sheddableThreshold must not exceed standardThreshold: sheddable requests are shed first',
    path: ['sheddableThreshold'],
  });
export type SloGatedParams = z.infer<typeof SloGatedParamsSchema>;

/**
 * BLIS's SLO-gated admission (docs/behaviour.md §2), the baseline the predictive policy is
 * measured against: critical is always admitted; standard while the cluster's average load is
 * below `standardThreshold`, sheddable while it is below the tighter `sheddableThreshold`. The
 * load is BLIS's EffectiveLoad averaged over the model's instances: queue depth + batch size from
 * each snapshot, plus the requests admission admitted that no snapshot shows yet (BLIS's pending
 * requests, routed but not yet queued: here admission's in-flight ledger). Sources: the two
 * thresholds and their defaults (10, 5) from BLIS's iteration-11 research note ("Idea 1 (Iter 11):
 * SLO-Gated Admission", inference-sim/inference-sim); EffectiveLoad and the strict `<` from
 * `SLOGatedAdmission` in inference-sim/inference-sim sim/admission.go, whose committed form has
 * one threshold and always admits standard.
 */
export function createSloGated(params: unknown): AdmissionPolicy {
  const p = SloGatedParamsSchema.parse(params);
  return {
    name: SLO_GATED,
    decide(request, cluster) {
      const group = sloBudgetGroupOf(request.priority);
      let instances = 0;
      let load = 0;
      for (const instance of cluster.instances) {
        if (instance.model !== request.model) continue;
        instances++;
        load += instance.queueDepth + instance.batchSize;
      }
      // Nothing serves the model: not admission's call (the router answers 503 no_worker).
      if (instances === 0) return { admit: true, inputs: { instances: 0, slo_group: group } };
      const unseen = cluster.admission?.unseenAdmitted(request.model) ?? 0;
      const avgLoad = (load + unseen) / instances;
      const threshold = group === 'critical' ? Number.POSITIVE_INFINITY : group === 'standard' ? p.standardThreshold : p.sheddableThreshold;
      const inputs = { avg_load: avgLoad, slo_group: group, instances, ledger_unseen: unseen, ...(Number.isFinite(threshold) && { threshold }) };
      if (avgLoad < threshold) return { admit: true, inputs };
      return {
        admit: false,
        reason: 'rejected_by_policy',
        message: `cluster load ${avgLoad.toFixed(1)} per instance is at or over the ${group} threshold of ${threshold} (${SLO_GATED})`,
        inputs,
      };
    },
  };
}
