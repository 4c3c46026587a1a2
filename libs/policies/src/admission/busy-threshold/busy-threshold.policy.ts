import { ALL_WORKERS_BUSY_BODY, BusyThresholdOverrideSchema } from '@sluice/contracts';
import { z } from 'zod';
import { busyThresholdsFor, isInstanceBusy } from '../../busy/busy-thresholds.js';
import type { AdmissionPolicy, DecisionInputs } from '../admission-policy.js';

export const BUSY_THRESHOLD = 'busy-threshold';

/** Unset = that check is off (Dynamo's semantics), so neither has a default. */
const THRESHOLDS = {
  /** Fraction of an instance's KV blocks held by decoding requests above which it is busy (0–1). */
  activeDecodeBlocksThreshold: z.number().min(0).max(1).optional(),
  /** Prompt tokens waiting to be prefilled on an instance above which it is busy. */
  activePrefillTokensThreshold: z.number().int().nonnegative().optional(),
};

export const BusyThresholdsSchema = z.strictObject(THRESHOLDS);

export const BusyThresholdParamsSchema = z.strictObject({
  ...THRESHOLDS,
  /** Per-model overrides, field by field over the top-level values (null: that check off for the model). */
  models: z.record(z.string().min(1), BusyThresholdOverrideSchema).default(() => ({})),
});
export type BusyThresholdParams = z.infer<typeof BusyThresholdParamsSchema>;

/**
 * Dynamo's load shedding at admission (docs/behaviour.md §2): reject with 503 only when every
 * worker of the model is busy, so a request is refused only when no worker could start it soon;
 * while any one has room, admit and let routing find it (the router routes only among the free
 * ones). An instance is busy past either threshold (busy/busy-thresholds.ts). Instances are the
 * data-parallel ranks of a worker; a worker is busy only when all of its ranks are.
 *
 * Stateless: thresholds change at run time by creating the policy again with new params.
 */
export function createBusyThreshold(params: unknown): AdmissionPolicy {
  const p = BusyThresholdParamsSchema.parse(params);
  return {
    name: BUSY_THRESHOLD,
    decide(request, cluster) {
      const t = busyThresholdsFor(p, request.model);
      const thresholdInputs: DecisionInputs = {
        ...(t.activeDecodeBlocksThreshold !== undefined && { active_decode_blocks_threshold: t.activeDecodeBlocksThreshold }),
        ...(t.activePrefillTokensThreshold !== undefined && { active_prefill_tokens_threshold: t.activePrefillTokensThreshold }),
      };

      /** workerId → are all its ranks seen so far busy. */
      const workers = new Map<string, boolean>();
      for (const instance of cluster.instances) {
        if (instance.model !== request.model) continue;
        const busy = isInstanceBusy(instance, t);
        workers.set(instance.workerId, (workers.get(instance.workerId) ?? true) && busy);
      }
      let busyWorkers = 0;
      for (const busy of workers.values()) if (busy) busyWorkers++;
      const inputs = { busy_workers: busyWorkers, total_workers: workers.size, ...thresholdInputs };

      // No worker at all is the router's answer (503 no_worker), not a busy cluster.
      if (workers.size > 0 && busyWorkers === workers.size) {
        return { admit: false, reason: 'all_workers_busy', message: ALL_WORKERS_BUSY_BODY.message, inputs };
      }
      return { admit: true, inputs };
    },
  };
}
