import { SLO_CLASS_PRIORITY, micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { ClusterView, InstanceView } from '../../cluster-view.js';
import type { AdmissionSignals } from '../admission-signals.js';
import { PrefixIndex } from '../../prefix-index/prefix-index.js';
import { blocksNamed, instanceView, policyRequest } from '../../testing/builders.js';
import { SloPredictiveParamsSchema, createSloPredictive, sloBudgetGroupOf } from './slo-predictive.policy.js';

/**
 * Round coefficients so every estimate is easy to check by hand:
 *   estimate = 10000·queueDepth + 10000 + 100·max(0, input − 16·matchedBlocks)  (µs)
 * Budgets: critical 100 ms, standard 200 ms, sheddable 300 ms.
 */
const ROUND = {
  avgStepTimeUs: 10_000,
  prefillBaseUs: 10_000,
  prefillPerTokenUs: 100,
  blockSize: 16,
  budgetsUs: { critical: 100_000, standard: 200_000, sheddable: 300_000 },
};

const CRITICAL = SLO_CLASS_PRIORITY.critical;
const STANDARD = SLO_CLASS_PRIORITY.standard;
const SHEDDABLE = SLO_CLASS_PRIORITY.sheddable;

const hashes = (n: number, prefix = 'h'): number[] => blocksNamed(...Array.from({ length: n }, (_, i) => `${prefix}${i}`));
const one = (queueDepth: number, extra: Partial<InstanceView> = {}): ClusterView => ({
  instances: [instanceView({ instanceId: 'i1', queueDepth, ...extra })],
});

describe('slo-predictive', () => {
  const policy = createSloPredictive(ROUND);

  it('admits within budget and reports the estimate', () => {
    // 10000·14 + 10000 + 100·400 = 190000 ≤ 200000.
    expect(policy.decide(policyRequest({ priority: STANDARD, inputTokens: 400 }), one(14), micros(0))).toEqual({
      admit: true,
      inputs: { predicted_ttft_us: 190_000, snapshot_predicted_ttft_us: 190_000, budget_us: 200_000, slo_group: 'standard', best_instance: 'i1', cached_tokens: 0, instances: 1, queue_ahead: 14, snapshot_age_us: 0, ledger_unseen: 0, flow_queued_ahead: 0, queue_report_age_us: -1, avg_step_time_us: 10_000, prefill_base_us: 10_000, prefill_per_token_us: 100, coefficients: 'params' },
    });
  });

  it('always admits critical, even far over its budget', () => {
    // 10000·100 + 10000 + 100·1000 = 1110000, 11× the 100000 budget.
    const d = policy.decide(policyRequest({ priority: CRITICAL, inputTokens: 1_000 }), one(100), micros(0));
    expect(d).toMatchObject({ admit: true, inputs: { predicted_ttft_us: 1_110_000, budget_us: 100_000, slo_group: 'critical' } });
  });

  it('admits standard between 1× and 2× its budget (2× inclusive), and rejects above 2×', () => {
    const standard = (queueDepth: number, inputTokens: number) =>
      policy.decide(policyRequest({ priority: STANDARD, inputTokens }), one(queueDepth), micros(0));
    // 250000 + 10000 + 50000 = 310000: over 200000, within 400000.
    expect(standard(25, 500)).toMatchObject({ admit: true, inputs: { predicted_ttft_us: 310_000 } });
    // 330000 + 10000 + 60000 = 400000: exactly 2×.
    expect(standard(33, 600)).toMatchObject({ admit: true, inputs: { predicted_ttft_us: 400_000 } });
    // 350000 + 10000 + 50000 = 410000 > 400000.
    expect(standard(35, 500)).toEqual({
      admit: false,
      reason: 'ttft_over_budget',
      message: 'predicted TTFT over budget: 410.0 ms on the best instance, over the standard budget of 200.0 ms × 2 × headroom 1',
      inputs: { predicted_ttft_us: 410_000, snapshot_predicted_ttft_us: 410_000, budget_us: 200_000, slo_group: 'standard', best_instance: 'i1', cached_tokens: 0, instances: 1, queue_ahead: 35, snapshot_age_us: 0, ledger_unseen: 0, flow_queued_ahead: 0, queue_report_age_us: -1, avg_step_time_us: 10_000, prefill_base_us: 10_000, prefill_per_token_us: 100, coefficients: 'params' },
    });
    // Priority 0 (no or unknown objective) is standard too.
    expect(policy.decide(policyRequest({ priority: 0, inputTokens: 500 }), one(35), micros(0))).toMatchObject({ admit: false, inputs: { slo_group: 'standard' } });
  });

  it('rejects sheddable just over 1× its budget', () => {
    // 240000 + 10000 + 50000 = 300000: exactly the budget → admitted.
    expect(policy.decide(policyRequest({ priority: SHEDDABLE, inputTokens: 500 }), one(24), micros(0))).toMatchObject({ admit: true });
    // One token more: 300100.
    expect(policy.decide(policyRequest({ priority: SHEDDABLE, inputTokens: 501 }), one(24), micros(0))).toEqual({
      admit: false,
      reason: 'ttft_over_budget',
      message: 'predicted TTFT over budget: 300.1 ms on the best instance, over the sheddable budget of 300.0 ms × headroom 1',
      inputs: { predicted_ttft_us: 300_100, snapshot_predicted_ttft_us: 300_100, budget_us: 300_000, slo_group: 'sheddable', best_instance: 'i1', cached_tokens: 0, instances: 1, queue_ahead: 24, snapshot_age_us: 0, ledger_unseen: 0, flow_queued_ahead: 0, queue_report_age_us: -1, avg_step_time_us: 10_000, prefill_base_us: 10_000, prefill_per_token_us: 100, coefficients: 'params' },
    });
    // batch and background share the sheddable budget.
    for (const priority of [SLO_CLASS_PRIORITY.batch, SLO_CLASS_PRIORITY.background]) {
      expect(policy.decide(policyRequest({ priority, inputTokens: 501 }), one(24), micros(0))).toMatchObject({ admit: false, inputs: { slo_group: 'sheddable' } });
    }
  });

  it('a cached prefix in the prefix index lowers the estimate and flips a rejection into an admission', () => {
    // 1600 tokens = 100 full blocks.
    const request = policyRequest({ priority: SHEDDABLE, inputTokens: 1_600, blockHashes: hashes(100) });
    const index = new PrefixIndex();
    const instances = [instanceView({ instanceId: 'i1', queueDepth: 20 })];

    // Nothing cached: 200000 + 10000 + 100·1600 = 370000 > 300000.
    expect(policy.decide(request, { instances, prefix: index }, micros(0))).toMatchObject({ admit: false, inputs: { predicted_ttft_us: 370_000, cached_tokens: 0 } });

    // The first 80 blocks cached: 1280 tokens, 320 to prefill: 200000 + 10000 + 32000 = 242000.
    index.record('i1', hashes(80));
    expect(policy.decide(request, { instances, prefix: index }, micros(0))).toMatchObject({
      admit: true,
      inputs: { predicted_ttft_us: 242_000, budget_us: 300_000, slo_group: 'sheddable', best_instance: 'i1', cached_tokens: 1_280, instances: 1 },
    });

    // The same view without a prefix lookup assumes nothing is cached.
    expect(policy.decide(request, { instances }, micros(0))).toMatchObject({ admit: false, inputs: { predicted_ttft_us: 370_000 } });
  });

  it('chooses the best instance of the model, counting its cached prefix', () => {
    // 800 tokens = 50 blocks.
    const request = policyRequest({ priority: STANDARD, inputTokens: 800, blockHashes: hashes(50) });
    const index = new PrefixIndex();
    index.record('c', hashes(50));
    index.record('other-model', hashes(50));
    const cluster: ClusterView = {
      prefix: index,
      instances: [
        instanceView({ instanceId: 'a', queueDepth: 5 }), //  50000 + 10000 + 80000 = 140000
        instanceView({ instanceId: 'b', queueDepth: 2 }), //  20000 + 10000 + 80000 = 110000
        instanceView({ instanceId: 'c', queueDepth: 4 }), //  40000 + 10000 + 0     =  50000 (all cached)
        instanceView({ instanceId: 'other-model', model: 'llama-3.1-8b', queueDepth: 0 }), // 10000, but not this model
      ],
    };
    expect(policy.decide(request, cluster, micros(0))).toMatchObject({
      admit: true,
      inputs: { predicted_ttft_us: 50_000, best_instance: 'c', cached_tokens: 800, instances: 3 },
    });
  });

  it('keeps the first instance in view order on a tie', () => {
    const cluster: ClusterView = { instances: [instanceView({ instanceId: 'x', queueDepth: 1 }), instanceView({ instanceId: 'y', queueDepth: 1 })] };
    expect(policy.decide(policyRequest(), cluster, micros(0)).inputs).toMatchObject({ best_instance: 'x' });
  });

  it('headroom scales the budget', () => {
    // Sheddable, 100000 + 10000 + 50000 = 160000: within 300000, over 300000·0.5 = 150000.
    const request = policyRequest({ priority: SHEDDABLE, inputTokens: 500 });
    expect(createSloPredictive({ ...ROUND, headroom: 1 }).decide(request, one(10), micros(0))).toMatchObject({ admit: true });
    expect(createSloPredictive({ ...ROUND, headroom: 0.5 }).decide(request, one(10), micros(0))).toMatchObject({
      admit: false,
      message: 'predicted TTFT over budget: 160.0 ms on the best instance, over the sheddable budget of 300.0 ms × headroom 0.5',
      inputs: { budget_us: 150_000 },
    });
    // Standard, 500000 + 10000 + 100000 = 610000: over 2 × 200000·1.5 = 600000.
    const tight = createSloPredictive({ ...ROUND, headroom: 1.5 }).decide(policyRequest({ priority: STANDARD, inputTokens: 1_000 }), one(50), micros(0));
    expect(tight).toMatchObject({
      admit: false,
      message: 'predicted TTFT over budget: 610.0 ms on the best instance, over the standard budget of 200.0 ms × 2 × headroom 1.5',
      inputs: { budget_us: 300_000 },
    });
    // 580000 ≤ 600000 with headroom 1.5 (would be rejected at headroom 1: > 400000).
    expect(createSloPredictive({ ...ROUND, headroom: 1.5 }).decide(policyRequest({ priority: STANDARD, inputTokens: 700 }), one(50), micros(0))).toMatchObject({
      admit: true,
      inputs: { predicted_ttft_us: 580_000 },
    });
  });

  it('admits when no instance serves the model (the router answers no_worker)', () => {
    const request = policyRequest({ priority: SHEDDABLE });
    expect(policy.decide(request, { instances: [] }, micros(0))).toMatchObject({ admit: true, inputs: { instances: 0 } });
    const elsewhere = { instances: [instanceView({ instanceId: 'l1', model: 'llama-3.1-8b' })] };
    expect(policy.decide(request, elsewhere, micros(0))).toMatchObject({ admit: true, inputs: { instances: 0 } });
  });

  it('defaults: qwen3-14b coefficients and budgets 150/300/500 ms', () => {
    const params = SloPredictiveParamsSchema.parse({});
    // The coefficients stay unset: they come from the serving profile, else qwen3-14b's (step-model.spec.ts).
    expect(params).toEqual({
      blockSize: 16,
      budgetsUs: { critical: 150_000, standard: 300_000, sheddable: 500_000 },
      headroom: 1,
    });
    // A partial budgets object keeps the other defaults.
    expect(SloPredictiveParamsSchema.parse({ budgetsUs: { critical: 1 } }).budgetsUs).toEqual({ critical: 1, standard: 300_000, sheddable: 500_000 });
    // 2·13605 + 13578.186663 + 39.444656·1000 = 27210 + 13578.186663 + 39444.656 = 80232.842663.
    const d = createSloPredictive({}).decide(policyRequest({ inputTokens: 1_000 }), one(2), micros(0));
    expect(d.admit).toBe(true);
    expect(d.inputs.predicted_ttft_us).toBeCloseTo(80_232.842663, 6);
    expect(d.inputs.budget_us).toBe(300_000);
    expect(d.inputs).toMatchObject({ avg_step_time_us: 13_605, coefficients: 'default' });
  });

  it('refuses bad parameters', () => {
    expect(() => createSloPredictive({ headroom: 0 })).toThrow();
    expect(() => createSloPredictive({ budgetsUs: { urgent: 1 } })).toThrow();
    expect(() => createSloPredictive({ blockSize: 16.5 })).toThrow();
  });

  it('maps priorities to budget groups (contracts/slo.ts priorities)', () => {
    expect(sloBudgetGroupOf(SLO_CLASS_PRIORITY.critical)).toBe('critical');
    expect(sloBudgetGroupOf(7)).toBe('critical');
    expect(sloBudgetGroupOf(SLO_CLASS_PRIORITY.standard)).toBe('standard');
    expect(sloBudgetGroupOf(0)).toBe('standard');
    expect(sloBudgetGroupOf(SLO_CLASS_PRIORITY.batch)).toBe('sheddable');
    expect(sloBudgetGroupOf(SLO_CLASS_PRIORITY.sheddable)).toBe('sheddable');
    expect(sloBudgetGroupOf(SLO_CLASS_PRIORITY.background)).toBe('sheddable');
  });
});

describe('slo-predictive with admission signals', () => {
  const signals = (over: Partial<AdmissionSignals> = {}): AdmissionSignals => ({
    unseenAdmitted: () => 0,
    queuedAhead: () => 0,
    queueReportAgeUs: () => undefined,
    stepCoefficients: () => undefined,
    ...over,
  });
  const two: InstanceView[] = [instanceView({ instanceId: 'i1', queueDepth: 4 }), instanceView({ instanceId: 'i2', queueDepth: 6, snapshotAgeUs: micros(30_000) })];
  const policy = createSloPredictive(ROUND);
  const request = policyRequest({ priority: STANDARD, inputTokens: 100 });

  it('counts the unseen admitted and the queued ahead, spread over the instances, on top of the snapshots', () => {
    // 4 + 6 pending over queues 4 and 6: 10 and 10 → the best waits behind 10: 10·10000 + 10000 + 100·100 = 120000.
    const d = policy.decide(request, { instances: two, admission: signals({ unseenAdmitted: () => 4, queuedAhead: () => 6, queueReportAgeUs: () => micros(12_000) }) }, micros(0));
    expect(d.inputs).toMatchObject({ predicted_ttft_us: 120_000, snapshot_predicted_ttft_us: 60_000, queue_ahead: 10, ledger_unseen: 4, flow_queued_ahead: 6, queue_report_age_us: 12_000, snapshot_age_us: 0 });
    // Without them the same view predicts 4·10000 + 10000 + 10000 = 60000: the bias the signals remove.
    expect(policy.decide(request, { instances: two }, micros(0)).inputs).toMatchObject({ predicted_ttft_us: 60_000, queue_ahead: 4 });
  });

  it('asks flow control for the requests of its own priority or higher only', () => {
    const asked: number[] = [];
    policy.decide(request, { instances: two, admission: signals({ queuedAhead: (_model, priority) => (asked.push(priority), 0) }) }, micros(0));
    expect(asked).toEqual([STANDARD]);
  });

  it("uses the serving model's profile when the params set no coefficients", () => {
    const profiled = createSloPredictive({ budgetsUs: ROUND.budgetsUs });
    const coefficients = { stepBaseUs: 5_000, prefillPerTokenUs: 10, decodePerTokenUs: 1_000, profile: 'tiny' };
    const d = profiled.decide(request, { instances: two, admission: signals({ stepCoefficients: (model) => (model === 'qwen3-14b' ? coefficients : undefined) }) }, micros(0));
    // 4·(5000 + 1000) + 5000 + 10·100 = 30000.
    expect(d.inputs).toMatchObject({ predicted_ttft_us: 30_000, avg_step_time_us: 6_000, prefill_base_us: 5_000, prefill_per_token_us: 10, coefficients: 'profile:tiny' });
  });
});
