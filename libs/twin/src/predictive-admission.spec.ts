import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig, loadProfile } from '@sluice/config';
import { generateWorkloadRequests, parseWorkloadSpec } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { simulate } from './index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The experiment's parameters (examples/workloads/predictive-admission.yaml): a queued 2048-token prompt costs about 94.4 ms. */
const SLO_PREDICTIVE = [
  '--admission.policy=slo-predictive',
  '--admission.policies.slo-predictive={avgStepTimeUs: 94400, budgetsUs: {critical: 250000, standard: 250000, sheddable: 250000}}',
];

/** An idle pair of instances hit by 60 requests of 2048 tokens within 30 ms: far more than one snapshot interval shows. */
const BURST = `
version: "2"
seed: 7
aggregate_rate: 2000
horizon: 0.03
clients:
  - id: burst
    tenant_id: tenant-a
    slo_class: critical
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 2048 } }
    output_distribution: { type: constant, params: { value: 32 } }
`;

interface Bias {
  /** Mean of predicted − observed TTFT over the admitted requests that got a first token, ms: with every input, and from snapshots alone. */
  readonly meanErrorMs: number;
  readonly snapshotOnlyMeanErrorMs: number;
  readonly meanObservedMs: number;
  readonly admitted: number;
}

/**
 * One twin run under slo-predictive, comparing each admitted request's predicted TTFT (its
 * decision's input, with every input and from the snapshots alone) with the TTFT its client saw.
 */
function predictionBias(workload: string, flags: readonly string[]): Bias {
  const config = loadConfig({ env: {}, argv: [...flags, ...SLO_PREDICTIVE] });
  const predicted = new Map<string, { all: number; snapshots: number }>();
  const { records } = simulate(generateWorkloadRequests(parseWorkloadSpec(workload)), {
    config,
    profile: loadProfile(config),
    observer: {
      admissionDecided: (id, _policy, { admit, inputs }) => {
        const all = inputs.predicted_ttft_us;
        const snapshots = inputs.snapshot_predicted_ttft_us;
        if (admit && typeof all === 'number' && typeof snapshots === 'number') predicted.set(id, { all: all / 1000, snapshots: snapshots / 1000 });
      },
    },
  });
  const all: number[] = [];
  const snapshots: number[] = [];
  const observed: number[] = [];
  for (const r of records) {
    const p = predicted.get(r.id);
    if (p === undefined || r.firstTokenMs === undefined) continue;
    const ttft = r.firstTokenMs - r.arrivalMs;
    all.push(p.all - ttft);
    snapshots.push(p.snapshots - ttft);
    observed.push(ttft);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { meanErrorMs: mean(all), snapshotOnlyMeanErrorMs: mean(snapshots), meanObservedMs: mean(observed), admitted: all.length };
}

describe('slo-predictive in the twin: predictions from fresh, complete inputs', () => {
  it('under a burst on idle instances, the ledger sees what the snapshots cannot: the mean error is a fraction of the snapshots-only one', () => {
    const bias = predictionBias(BURST, ['--worker.instances=2']);
    expect(bias.admitted).toBeGreaterThan(40); // critical: every one is admitted
    // From snapshots alone each request of the burst looks like the first: biased low by most of its wait.
    expect(bias.snapshotOnlyMeanErrorMs).toBeLessThan(-0.5 * bias.meanObservedMs);
    expect(Math.abs(bias.meanErrorMs)).toBeLessThan(Math.abs(bias.snapshotOnlyMeanErrorMs) / 3);
  });

  it('under sustained 1.5× overload (flow control queuing), the mean error is closer to 0 than from the snapshots alone', () => {
    const bias = predictionBias(readFileSync(`${ROOT}examples/workloads/predictive-admission.yaml`, 'utf8'), ['--worker.instances=2']);
    expect(bias.admitted).toBeGreaterThan(100);
    expect(bias.snapshotOnlyMeanErrorMs).toBeLessThan(0);
    expect(Math.abs(bias.meanErrorMs)).toBeLessThan(Math.abs(bias.snapshotOnlyMeanErrorMs));
  });
});
