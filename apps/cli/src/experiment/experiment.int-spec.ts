import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readReportJson } from '@sluice/report';
import { runSluice } from '@sluice/testing';

/**
 * `sluice experiment` as a user runs it (the built CLI, a child process): both arms in the twin,
 * then each live on a local cluster of its own, the claims judged on each, and `--record` writing
 * the figures into the file, where `--check` holds the twin to them.
 */
const WORKLOAD = `
seed: 3
aggregate_rate: 40
num_requests: 60
clients:
  - { id: c, tenant_id: t, slo_class: critical, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 512 } }, output_distribution: { type: constant, params: { value: 4 } } }
  - { id: s, tenant_id: t, slo_class: sheddable, rate_fraction: 2, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 512 } }, output_distribution: { type: constant, params: { value: 4 } } }
`;

// reject-all refuses everything: whatever the machine's speed, the treatment serves none.
const EXPERIMENT = `
name: refusing everything serves nothing
hypothesis: reject-all serves fewer requests than always-admit
source: a test
workload: workload.yaml
cluster: { worker: { instances: 1 } }
live: { worker: { timeScale: 20 } }
control: admit
arms:
  - { name: admit, about: the control, config: { admission: { policy: always-admit } } }
  - { name: refuse, about: the treatment, config: { admission: { policy: reject-all } } }
claims:
  - { says: fewer are served, metric: overall.completed, arm: refuse, vs: admit, op: '<' }
  - { says: none at all, metric: overall.completed, arm: refuse, op: '<=', value: 0 }
`;

describe('sluice experiment', () => {
  it('judges the claims in the twin and live, records the figures, and --check holds the twin to them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-experiment-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    const file = join(dir, 'experiment.yaml');
    writeFileSync(file, EXPERIMENT);

    const run = await runSluice(['experiment', file, '--live', '--record', '--json', '--out', join(dir, 'out')], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { runs: { where: string; verdict: string; claims: { left: number; right: number; holds: boolean }[] }[] };
    expect(result.runs.map((r) => [r.where, r.verdict])).toEqual([
      ['twin', 'confirmed'],
      ['live', 'confirmed'],
    ]);
    for (const r of result.runs) expect(r.claims[0]).toMatchObject({ left: 0, right: 60, holds: true });
    expect(readReportJson(join(dir, 'out', 'live', 'admit', 'report.json'), { records: false }).tool).toBe('sluice run');

    const recorded = (parseYaml(readFileSync(file, 'utf8')) as { recorded: Record<string, { verdict: string }> }).recorded;
    expect(Object.keys(recorded).sort()).toEqual(['live', 'twin']);
    expect((await runSluice(['experiment', file, '--check', '--out', join(dir, 'again')])).code).toBe(0);
    // A recorded figure that is no longer what the twin gives fails the check, naming the claim.
    writeFileSync(file, readFileSync(file, 'utf8').replace('right: 60', 'right: 61'));
    const drifted = await runSluice(['experiment', file, '--check', '--out', join(dir, 'drift')]);
    expect(drifted.code).toBe(1);
    expect(drifted.stderr).toContain('claim 1 (fewer are served)');
  });
});
