import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionTraceLineSchema } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import type { DecisionComparison } from '@sluice/report';
import { runSluice } from '@sluice/testing';

/**
 * The live router's decision trace against the twin's, for one workload, config and seed. A
 * request every 500 ms, each done in tens of ms: every decision finds an idle cluster on both
 * sides, every candidate ties, and the seeded tie-break must pick the same instance live and in
 * the twin, decision after decision (the run in step, `inStep`). What the comparison can promise
 * beyond that run is nothing: once one side ties where the other does not, their tie-break
 * streams are out of step (compare-decisions.ts).
 */
const WORKLOAD = `
seed: 5
aggregate_rate: 2
num_requests: 24
clients:
  - id: chat
    tenant_id: acme
    slo_class: standard
    rate_fraction: 1
    arrival: { process: constant }
    input_distribution: { type: constant, params: { value: 64 } }
    output_distribution: { type: constant, params: { value: 4 } }
`;
/** Both sides: two instances, every candidate listed (k ≥ instances), a seeded tie-break. */
const CONFIG = ['--worker.instances=2', '--router.policy=least-loaded', '--router.seed=11', '--router.counterfactualK=2'];

describe('decision traces, live and twin', () => {
  let cluster: LocalCluster;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-decisions-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    // No warm-up requests: each would be a decision (and a tie-break draw) the twin does not make.
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, ...CONFIG, `--router.decisionTrace=${join(dir, 'live.ndjson')}`] });
  });
  afterAll(() => cluster?.stop());

  it('writes one valid line per decision on each side, and they agree throughout the run in step', async () => {
    const live = join(dir, 'live');
    // The twin reads nothing of the live run, so it runs beside it: its ~0.3 s of CPU is over
    // before the first request is sent (500 ms into the run), and it runs in virtual time.
    const [run, sim] = await Promise.all([
      runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--out', live, '--json']),
      runSluice(['simulate', join(dir, 'workload.yaml'), ...CONFIG, '--out', join(dir, 'twin'), '--decision-trace', join(dir, 'twin.ndjson'), '--json']),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(sim.code, sim.stderr).toBe(0);

    for (const side of ['live', 'twin']) {
      const lines = readFileSync(join(dir, `${side}.ndjson`), 'utf8').trimEnd().split('\n');
      expect(lines, side).toHaveLength(24);
      for (const line of lines) expect(DecisionTraceLineSchema.safeParse(JSON.parse(line)).success, line).toBe(true);
    }

    const compared = await runSluice(['compare-decisions', join(dir, 'live.ndjson'), join(dir, 'twin.ndjson'), '--ids', join(live, 'report.json'), '--json']);
    expect(compared.code, compared.stderr).toBe(0);
    const c = JSON.parse(compared.stdout) as DecisionComparison;
    expect(c.matched, 'every request decided once on each side, under the same name').toBe(24);
    expect(c.onlyA + c.onlyB).toBe(0);
    // Decisions on an idle cluster, in the same order: in step throughout, and alike.
    expect(c.inStep, JSON.stringify(c.firstDisagreement)).toBe(24);
    expect(c.agreeInStep).toBe(24);
    expect(c.agree).toBe(24);
    // Both traces' regret is that of ties: 0.
    expect([c.a.regret.max, c.b.regret.max]).toEqual([0, 0]);
  });
});
