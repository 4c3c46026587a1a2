import { z } from 'zod';
import type { InstanceView, PolicyRequest } from '../../cluster-view.js';
import type { AdmissionPolicy } from '../admission-policy.js';

export const SLO_PREDICTIVE = 'slo-predictive';

/** The budget groups: every SLO class falls in one of them by its priority. */
export const SLO_BUDGET_GROUPS = ['critical', 'standard', 'sheddable'] as const;
export type SloBudgetGroup = (typeof SLO_BUDGET_GROUPS)[number];

const budget = (us: number) => z.number().positive().default(us);

export const SloPredictiveParamsSchema = z.strictObject({
  /**
   * Time one queued request ahead adds, µs. Default: a one-token decode step of qwen3-14b on
   * H100, β0 + β2 = 13578.19 + 27.32, truncated (BLIS blackbox coefficients, docs/behaviour.md §1).
   */
  avgStepTimeUs: z.number().nonnegative().default(13_605),
  /** β0 of the prefill step, µs (qwen3-14b). */
  prefillBaseUs: z.number().nonnegative().default(13_578.186663),
  /** β1: µs per prompt token that is not a cache hit (qwen3-14b). */
  prefillPerTokenUs: z.number().nonnegative().default(39.444656),
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
}

const ms = (us: number): string => (us / 1000).toFixed(1);

/**
 * TTFT-budget admission (docs/behaviour.md §2): predict the request's TTFT on every instance of its
 * model and admit if the best one fits the budget of its SLO class. The prediction is BLIS's
 * blackbox step model applied to the router's view:
 *   TTFT ≈ queueDepth·avgStepTime + β0 + β1·max(0, input − cachedPrefixBlocks·blockSize)
 * i.e. wait for the requests queued ahead (one step each), then one prefill step over the
 * uncached part of the prompt. The cached prefix comes from the router-side prefix index when the
 * view carries one; without it every token counts as a miss (a pessimistic estimate).
 *
 * Over budget, the classes differ on purpose: critical is never shed (its latency matters more
 * than the estimate's accuracy), standard gets a 2× grace, sheddable goes first.
 */
export function createSloPredictive(params: unknown): AdmissionPolicy {
  const p = SloPredictiveParamsSchema.parse(params);

  const estimate = (request: PolicyRequest, instance: InstanceView, matchedBlocks: number): Estimate => {
    const cachedTokens = matchedBlocks * p.blockSize;
    const missTokens = Math.max(0, request.inputTokens - cachedTokens);
    const ttftUs = instance.queueDepth * p.avgStepTimeUs + p.prefillBaseUs + p.prefillPerTokenUs * missTokens;
    return { instance, ttftUs, cachedTokens };
  };

  return {
    name: SLO_PREDICTIVE,
    readsPrefix: true,
    decide(request, cluster) {
      const group = sloBudgetGroupOf(request.priority);
      const budgetUs = p.budgetsUs[group] * p.headroom;

      let best: Estimate | undefined;
      let instances = 0;
      for (const instance of cluster.instances) {
        if (instance.model !== request.model) continue;
        instances++;
        const matched = cluster.prefix?.matchedBlocks(instance.instanceId, request.blockHashes) ?? 0;
        const e = estimate(request, instance, matched);
        // Strict: on a tie the first instance in view order stays best, so decisions are stable.
        if (!best || e.ttftUs < best.ttftUs) best = e;
      }
      // Nothing serves the model: not admission's call. The router answers 503 no_worker.
      if (!best) return { admit: true, inputs: { instances: 0, slo_group: group, budget_us: budgetUs } };

      const inputs = {
        predicted_ttft_us: best.ttftUs,
        budget_us: budgetUs,
        slo_group: group,
        best_instance: best.instance.instanceId,
        cached_tokens: best.cachedTokens,
        instances,
      };
      if (best.ttftUs <= budgetUs) return { admit: true, inputs };
      switch (group) {
        case 'critical':
          return { admit: true, inputs };
        case 'standard':
          if (best.ttftUs <= 2 * budgetUs) return { admit: true, inputs };
          return {
            admit: false,
            reason: 'ttft_over_budget',
            message: `predicted TTFT over budget: ${ms(best.ttftUs)} ms on the best instance, over the standard budget of ${ms(p.budgetsUs.standard)} ms × 2 × headroom ${p.headroom}`,
            inputs,
          };
        case 'sheddable':
          return {
            admit: false,
            reason: 'ttft_over_budget',
            message: `predicted TTFT over budget: ${ms(best.ttftUs)} ms on the best instance, over the sheddable budget of ${ms(p.budgetsUs.sheddable)} ms × headroom ${p.headroom}`,
            inputs,
          };
      }
    },
  };
}
