import { z } from 'zod';
import type { InstanceView } from '../../cluster-view.js';
import type { AdmissionPolicy } from '../admission-policy.js';
import { spreadPending } from './spread-pending.js';
import { stepModelFor } from './step-model.js';

export const SLO_PREDICTIVE = 'slo-predictive';

/** The budget groups: every SLO class falls in one of them by its priority. */
export const SLO_BUDGET_GROUPS = ['critical', 'standard', 'sheddable'] as const;
export type SloBudgetGroup = (typeof SLO_BUDGET_GROUPS)[number];

const budget = (us: number) => z.number().positive().default(us);

export const SloPredictiveParamsSchema = z.strictObject({
  /**
   * Time one queued request ahead adds, µs. Unset: a one-token decode step (β0 + β2) of the
   * serving model's profile, scaled by `worker.timeScale` (qwen3-14b's, 13605, without one).
   */
  avgStepTimeUs: z.number().nonnegative().optional(),
  /** β0 of the prefill step, µs. Unset: the serving profile's (qwen3-14b's 13578.19 without one). */
  prefillBaseUs: z.number().nonnegative().optional(),
  /** β1: µs per prompt token that is not a cache hit. Unset: the serving profile's (qwen3-14b's 39.44). */
  prefillPerTokenUs: z.number().nonnegative().optional(),
  /** Tokens per KV block: converts matched prefix blocks into cached tokens. */
  blockSize: z.number().int().positive().default(16),
  /** TTFT budget per group, µs. `prefault`: `{}` or a partial object still gets every default. */
  budgetsUs: z
    .strictObject({ critical: budget(150_000), standard: budget(300_000), sheddable: budget(500_000) })
    .prefault({}),
  /** Multiplies every budget: >1 admits more optimistically, <1 sheds earlier. */
  headroom: z.number().positive().default(1),
});
export type SloPredictiveParams = z.infer<typeof SloPredictiveParamsSchema>;

/**
 * The budget group of a request by its priority (contracts/slo.ts): critical is 4; standard 3
 * and unknown objectives 0 both count as standard; batch, sheddable and background have negative
 * priority and share the sheddable budget (negative priority = sheddable, docs/behaviour.md §3).
 */
export function sloBudgetGroupOf(priority: number): SloBudgetGroup {
  if (priority >= 4) return 'critical';
  if (priority >= 0) return 'standard';
  return 'sheddable';
}

interface Estimate {
  readonly instance: InstanceView;
  readonly ttftUs: number;
  readonly cachedTokens: number;
  /** Requests it is predicted to wait behind: its snapshot's queue plus its share of those pending. */
  readonly queueAhead: number;
}

const ms = (us: number): string => (us / 1000).toFixed(1);

/**
 * TTFT-budget admission (docs/behaviour.md §2): predict the request's TTFT on every instance of its
 * model and admit if the best one fits the budget of its SLO class. The prediction is BLIS's
 * blackbox step model applied to admission's view (BLIS's iteration-14 PredictiveSLOAdmission):
 *   TTFT ≈ queueAhead·avgStepTime + β0 + β1·max(0, input − cachedPrefixBlocks·blockSize)
 * i.e. wait for the requests queued ahead (one step each), then one prefill step over the
 * uncached part of the prompt. The cached prefix comes from the router-side prefix index when the
 * view carries one; without it every token counts as a miss (a pessimistic estimate).
 *
 * What waits ahead is more than a snapshot shows: the requests admission admitted that no report
 * shows yet (its ledger) and those flow control holds of equal or higher priority (dispatched
 * first) are spread over the instances as a load-balancing router would (`spreadPending`), on top
 * of each instance's snapshot queue. The coefficients are the serving model's profile unless the
 * params set them (`stepModelFor`).
 *
 * Over budget, the classes differ on purpose: critical is never shed (its latency matters more
 * than the estimate's accuracy), standard gets a 2× grace, sheddable goes first.
 */
export function createSloPredictive(params: unknown): AdmissionPolicy {
  const p = SloPredictiveParamsSchema.parse(params);

  return {
    name: SLO_PREDICTIVE,
    readsPrefix: true,
    decide(request, cluster) {
      const group = sloBudgetGroupOf(request.priority);
      const budgetUs = p.budgetsUs[group] * p.headroom;
      const signals = cluster.admission;
      const step = stepModelFor(p, signals?.stepCoefficients(request.model));

      const serving = cluster.instances.filter((instance) => instance.model === request.model);
      // Asked only when something serves the model (the ledger's watermark reads the instances).
      const unseen = signals?.unseenAdmitted(request.model) ?? 0;
      const queuedAhead = signals?.queuedAhead(request.model, request.priority) ?? 0;
      const queues = spreadPending(
        serving.map((instance) => instance.queueDepth),
        unseen + queuedAhead,
      );
      let chosen: Estimate | undefined;
      // What the snapshots alone predict (BLIS's inputs): a span shows how much the rest changed it.
      let fromSnapshotsUs = Number.POSITIVE_INFINITY;
      for (const [i, instance] of serving.entries()) {
        const cachedTokens = (cluster.prefix?.matchedBlocks(instance.instanceId, request.blockHashes) ?? 0) * p.blockSize;
        const prefillUs = step.prefillBaseUs + step.prefillPerTokenUs * Math.max(0, request.inputTokens - cachedTokens);
        const queueAhead = queues[i]!;
        const ttftUs = queueAhead * step.avgStepTimeUs + prefillUs;
        fromSnapshotsUs = Math.min(fromSnapshotsUs, instance.queueDepth * step.avgStepTimeUs + prefillUs);
        // Strict: on a tie the first instance in view order stays best, so decisions are stable.
        if (!chosen || ttftUs < chosen.ttftUs) chosen = { instance, ttftUs, cachedTokens, queueAhead };
      }
      // Nothing serves the model: not admission's call. The router answers 503 no_worker.
      if (!chosen) return { admit: true, inputs: { instances: 0, slo_group: group, budget_us: budgetUs } };
      const reportAgeUs = signals?.queueReportAgeUs();
      const inputs = {
        predicted_ttft_us: chosen.ttftUs,
        snapshot_predicted_ttft_us: fromSnapshotsUs,
        budget_us: budgetUs,
        slo_group: group,
        best_instance: chosen.instance.instanceId,
        cached_tokens: chosen.cachedTokens,
        instances: serving.length,
        queue_ahead: chosen.queueAhead,
        // -1: no such input (no snapshot yet, no queue report heard).
        snapshot_age_us: Number.isFinite(chosen.instance.snapshotAgeUs) ? chosen.instance.snapshotAgeUs : -1,
        ledger_unseen: unseen,
        flow_queued_ahead: queuedAhead,
        queue_report_age_us: reportAgeUs ?? -1,
        avg_step_time_us: step.avgStepTimeUs,
        prefill_base_us: step.prefillBaseUs,
        prefill_per_token_us: step.prefillPerTokenUs,
        coefficients: step.source,
      };
      if (chosen.ttftUs <= budgetUs) return { admit: true, inputs };
      switch (group) {
        case 'critical':
          return { admit: true, inputs };
        case 'standard':
          if (chosen.ttftUs <= 2 * budgetUs) return { admit: true, inputs };
          return {
            admit: false,
            reason: 'ttft_over_budget',
            message: `predicted TTFT over budget: ${ms(chosen.ttftUs)} ms on the best instance, over the standard budget of ${ms(p.budgetsUs.standard)} ms × 2 × headroom ${p.headroom}`,
            inputs,
          };
        case 'sheddable':
          return {
            admit: false,
            reason: 'ttft_over_budget',
            message: `predicted TTFT over budget: ${ms(chosen.ttftUs)} ms on the best instance, over the sheddable budget of ${ms(p.budgetsUs.sheddable)} ms × headroom ${p.headroom}`,
            inputs,
          };
      }
    },
  };
}
