import { SLO_CLASS_PRIORITY, micros } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import type { ClusterView } from '../../cluster-view.js';
import { instanceView, policyRequest } from '../../testing/builders.js';
import type { AdmissionSignals } from '../admission-signals.js';
import { SloGatedParamsSchema, createSloGated } from './slo-gated.policy.js';

const { critical: CRITICAL, standard: STANDARD, sheddable: SHEDDABLE } = SLO_CLASS_PRIORITY;

/** Two instances whose queue + batch add up to `total` (their average is half). */
const cluster = (total: number, unseen = 0): ClusterView => {
  const signals: AdmissionSignals = { unseenAdmitted: () => unseen, queuedAhead: () => 0, queueReportAgeUs: () => undefined, stepCoefficients: () => undefined };
  return {
    instances: [instanceView({ instanceId: 'i1', queueDepth: total - 1, batchSize: 1 }), instanceView({ instanceId: 'i2' }), instanceView({ instanceId: 'x', model: 'other', queueDepth: 1_000 })],
    admission: signals,
  };
};

describe('slo-gated', () => {
  const policy = createSloGated({ standardThreshold: 6, sheddableThreshold: 3 });
  const decide = (priority: number, view: ClusterView) => policy.decide(policyRequest({ priority }), view, micros(0));

  it('admits standard below its threshold and rejects at it (strictly below, as BLIS)', () => {
    expect(decide(STANDARD, cluster(11))).toMatchObject({ admit: true, inputs: { avg_load: 5.5, threshold: 6, instances: 2 } });
    expect(decide(STANDARD, cluster(12))).toMatchObject({ admit: false, reason: 'rejected_by_policy', inputs: { avg_load: 6 } });
  });

  it('sheds sheddable first, at the tighter threshold', () => {
    expect(decide(SHEDDABLE, cluster(5))).toMatchObject({ admit: true, inputs: { avg_load: 2.5, threshold: 3 } });
    expect(decide(SHEDDABLE, cluster(6))).toMatchObject({ admit: false });
    expect(decide(STANDARD, cluster(6))).toMatchObject({ admit: true });
  });

  it('always admits critical', () => {
    expect(decide(CRITICAL, cluster(1_000))).toMatchObject({ admit: true, inputs: { slo_group: 'critical' } });
  });

  it("counts the admitted requests no snapshot shows yet (BLIS's pending)", () => {
    // (4 + 2) / 2 = 3: at the sheddable threshold.
    expect(decide(SHEDDABLE, cluster(4, 2))).toMatchObject({ admit: false, inputs: { avg_load: 3, ledger_unseen: 2 } });
    expect(decide(SHEDDABLE, cluster(4, 1))).toMatchObject({ admit: true });
  });

  it('admits when nothing serves the model (the router answers no_worker)', () => {
    expect(policy.decide(policyRequest({ priority: SHEDDABLE, model: 'none' }), cluster(100), micros(0))).toMatchObject({ admit: true, inputs: { instances: 0 } });
  });

  it('has the iteration-11 defaults and refuses a sheddable threshold above the standard one', () => {
    expect(SloGatedParamsSchema.parse({})).toEqual({ standardThreshold: 10, sheddableThreshold: 5 });
    expect(() => SloGatedParamsSchema.parse({ standardThreshold: 2, sheddableThreshold: 3 })).toThrow(/sheddableThreshold must not exceed/);
    expect(() => SloGatedParamsSchema.parse({ threshold: 3 })).toThrow();
  });
});
