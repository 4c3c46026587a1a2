import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReportJson } from '@sluice/report';
import { Output } from '../terminal/output.js';
import type { Command } from './command.js';
import { compareCommand } from './compare.command.js';
import { simulateCommand } from './simulate.command.js';

/** `sluice simulate` kept and streamed, through the command: when it streams, what it writes, what it refuses. */
const WORKLOAD = `
seed: 5
aggregate_rate: 60
num_requests: 120
clients:
  - { id: chat, tenant_id: acme, slo_class: critical, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 256 } }, output_distribution: { type: constant, params: { value: 16 } } }
  - { id: api, tenant_id: globex, slo_class: standard, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 512 } }, output_distribution: { type: constant, params: { value: 24 } } }
`;

async function sluice(command: Command, dir: string, ...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const ctx = { rootDir: tmpdir(), cwd: dir, env: {}, stdout: new Output({ write: (c: string) => (stdout += c) }, {}), stderr: new Output({ write: (c: string) => (stderr += c) }, {}) };
  return { code: await command.run(argv, ctx), stdout, stderr };
}

describe('sluice simulate, streamed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-simulate-stream-'));
  writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
  const simulate = (out: string, ...args: string[]) => sluice(simulateCommand, dir, 'workload.yaml', '--out', out, '--json', '--worker.instances=2', ...args);

  it('streams above twin.streamAbove, or with --stream: the kept summary, the records in records.ndjson', async () => {
    const kept = await simulate('kept');
    const above = await simulate('above', '--twin.streamAbove=119');
    const flagged = await simulate('flagged', '--stream');
    const at = await simulate('at', '--twin.streamAbove=120');
    for (const run of [kept, above, flagged, at]) expect(run.code, run.stderr).toBe(0);
    // At the threshold the run is kept: the same report.json byte for byte but the key's own line, records inside.
    const withoutKey = readFileSync(join(dir, 'at', 'report.json'), 'utf8').replace(/},\n\s*"streamAbove": 120\n/, '}\n');
    expect(withoutKey).toBe(readFileSync(join(dir, 'kept', 'report.json'), 'utf8'));
    expect(existsSync(join(dir, 'at', 'records.ndjson'))).toBe(false);
    const keptReport = readReportJson(join(dir, 'kept', 'report.json'));
    for (const out of ['above', 'flagged']) {
      const head = JSON.parse(readFileSync(join(dir, out, 'report.json'), 'utf8')) as Record<string, unknown>;
      expect(head.records).toBeUndefined();
      expect(head.recordsFile).toBe('records.ndjson');
      expect(JSON.stringify(head.summary)).toBe(JSON.stringify(keptReport.summary));
      const read = readReportJson(join(dir, out, 'report.json'));
      expect(new Set(read.records.map((r) => JSON.stringify(r)))).toEqual(new Set(keptReport.records.map((r) => JSON.stringify(r))));
      // The plots' notes say what they were drawn from; no load-per-worker curve from a sample.
      const html = readFileSync(join(dir, out, 'report.html'), 'utf8');
      expect(html).toContain('Counted from every request.');
      expect(html).not.toContain('data-plot="worker-load"');
      // The slowest requests are the kept page's, kept whole as they passed.
      const slowestTable = (page: string) => page.slice(page.indexOf('id="slowest-ttft"'), page.indexOf('<h2>Plots</h2>'));
      expect(slowestTable(html)).toBe(slowestTable(readFileSync(join(dir, 'kept', 'report.html'), 'utf8')));
      expect(slowestTable(html)).toContain('<td class="name">r');
    }
    const compared = await sluice(compareCommand, dir, 'kept/report.json', 'flagged/report.json', '--json');
    expect(compared.code, compared.stderr).toBe(0);
  });

  it('refuses what reads every record, naming the way out', async () => {
    const exportTrace = await simulate('refused', '--stream', '--export-trace', 'trace');
    expect(exportTrace.code).toBe(2);
    expect(exportTrace.stderr).toMatch(/--stream, and --export-trace writes what became of each request from every record: it cannot be streamed \(leave out --stream\)/);
    const above = await simulate('refused', '--twin.streamAbove=10', '--export-trace', 'trace');
    expect(above.stderr).toMatch(/the workload offers 120 requests, above twin.streamAbove \(10\).*raise twin.streamAbove/);
    const chaos = await sluice(simulateCommand, dir, '--chaos', join(import.meta.dirname, '../../../../examples/chaos/admission-crash.yaml'), '--short', '--stream', '--out', 'refused');
    expect(chaos.code).toBe(2);
    expect(chaos.stderr).toMatch(/--stream, and a chaos run reads every record for its report: it cannot be streamed/);
    expect(existsSync(join(dir, 'refused'))).toBe(false);
  });

  it('says a report whose records file is missing keeps its records there', async () => {
    const run = await simulate('moved', '--stream');
    expect(run.code, run.stderr).toBe(0);
    writeFileSync(join(dir, 'elsewhere.json'), readFileSync(join(dir, 'moved', 'report.json')));
    expect(() => readReportJson(join(dir, 'elsewhere.json'))).toThrow(/keeps its records in records.ndjson beside it .* does not exist: copy the two files together/);
  });
});
