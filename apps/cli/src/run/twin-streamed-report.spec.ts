import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadProfile } from '@sluice/config';
import { forEachReportRecord, readReportJson, writeRunReports } from '@sluice/report';
import { parseWorkloadSpec } from '@sluice/workload';
import { workloadInputFromSpec } from './read-workload-input.js';
import { twinReport } from './twin-report.js';
import { plannedRequests, twinStreamedReport } from './twin-streamed-report.js';

/**
 * A streamed twin run against the kept run of the same workload: two classes and two tenants, SLO
 * targets some requests miss, a rate that queues (so records settle out of request order and some
 * are rejected), fitness weights. The report must be the kept one field for field, its records the
 * kept ones once put back in request order.
 */
const WORKLOAD = `
seed: 7
aggregate_rate: 40
num_requests: 600
slo_targets:
  critical: { ttft_ms: 400, tpot_ms: 40 }
clients:
  - { id: chat, tenant_id: acme, slo_class: critical, rate_fraction: 2, arrival: { process: poisson }, prefix_group: system, prefix_length: 256, input_distribution: { type: gaussian, params: { mean: 512, std_dev: 128, min: 16 } }, output_distribution: { type: gaussian, params: { mean: 64, std_dev: 24, min: 1 } } }
  - { id: batch, tenant_id: globex, slo_class: standard, rate_fraction: 1, arrival: { process: gamma, cv: 2 }, input_distribution: { type: constant, params: { value: 1024 } }, output_distribution: { type: exponential, params: { mean: 96 } } }
`;

describe('twinStreamedReport', () => {
  const config = loadConfig({ env: {}, argv: ['--worker.instances=2', '--router.policy=least-loaded', '--admission.policy=token-bucket'] });
  const options = { config, profile: loadProfile(config), fitnessWeights: { ttft_p99: 2, goodput_rps: 1 } };
  const workload = () => workloadInputFromSpec('workload.yaml', parseWorkloadSpec(WORKLOAD));

  it('reports what the kept run reports, field for field, and keeps the same records in records.ndjson', () => {
    const kept = twinReport(workload(), options).report;
    const dir = mkdtempSync(join(tmpdir(), 'sluice-streamed-'));
    const { report, result } = twinStreamedReport(workload(), options, dir);
    expect(result.requests).toBe(600);
    expect(report.summary).toEqual(kept.summary);
    expect(JSON.stringify(report.summary)).toBe(JSON.stringify(kept.summary));
    const { records: _kept, ...keptHead } = kept;
    const { records, recordsFile, ...head } = report;
    expect(head).toEqual(keptHead);
    expect(records).toEqual([]);
    expect(recordsFile).toBe('records.ndjson');
    // Settle order is not request order when requests queue: the summary did not depend on it.
    const lines = readFileSync(join(dir, 'records.ndjson'), 'utf8').trimEnd().split('\n');
    const ids = lines.map((line) => (JSON.parse(line) as { id: string }).id);
    expect(ids).not.toEqual(kept.records.map((r) => r.id));
    const byPosition = (a: { id: string }, b: { id: string }) => Number(a.id.slice(1)) - Number(b.id.slice(1));
    writeRunReports(dir, report);
    const read = readReportJson(join(dir, 'report.json'));
    expect(JSON.stringify([...read.records].sort(byPosition))).toBe(JSON.stringify(kept.records));
    const passed: string[] = [];
    forEachReportRecord(join(dir, 'report.json'), (r) => passed.push(r.id));
    expect(passed).toEqual(ids);
  });

  it('knows a spec\'s size before generating it', () => {
    expect(plannedRequests(workload())).toBe(600);
    expect(plannedRequests(workloadInputFromSpec('w.yaml', parseWorkloadSpec(WORKLOAD.replace('num_requests: 600', 'horizon: 30'))))).toBe(1200);
  });
});
