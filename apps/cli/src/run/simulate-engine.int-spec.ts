import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSluice } from '@sluice/testing';
import type { RunReportFile } from '@sluice/report';

/**
 * `sluice simulate` (the built CLI) on a tiny overloaded workload: one instance with 12 KV blocks,
 * requests whose prompts take 4 blocks and grow to 8, arriving together. The twin's engine must
 * preempt, and report.json's engine section says so.
 */
const WORKLOAD = `
seed: 3
aggregate_rate: 1000
num_requests: 6
clients:
  - id: burst
    tenant_id: acme
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 64 } }
    output_distribution: { type: constant, params: { value: 64 } }
`;

// Enabled with the line in simulate.command.ts that writes the twin's counters into the report:
// `engine: engineSection(result.engine, 'kv-blocks'),` (engineSection from @sluice/report).
describe('sluice simulate: engine counters', () => {
  it('reports the preemptions and KV allocation failures of an overloaded instance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-sim-engine-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    const out = join(dir, 'sim');
    const run = await runSluice(['simulate', join(dir, 'workload.yaml'), '--out', out, '--json', '--worker.instances=1', '--worker.kvBlocks=12']);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
    expect(report.engine?.cacheHitRateOf).toBe('kv-blocks');
    expect(report.engine?.instances.map((i) => i.instance)).toEqual(['twin-r0']);
    expect(report.engine!.cluster.preemptions).toBeGreaterThan(0);
    expect(report.engine!.cluster.kvAllocationFailures).toBeGreaterThan(0);
    expect(report.engine!.cluster).toEqual({ preemptions: report.engine!.instances[0]!.preemptions, kvAllocationFailures: report.engine!.instances[0]!.kvAllocationFailures, cacheHitRate: report.engine!.instances[0]!.cacheHitRate });
    expect(report.summary.conservation.books.completed).toBe(6);
  });
});
