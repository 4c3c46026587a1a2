import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { exportTraceV2, generateWorkloadRequests, parseWorkloadSpec, tracePrefixesFromSpec } from '@sluice/workload';
import { WorkloadInputError, readWorkloadInput } from './read-workload-input.js';

const SPEC_TEXT = `
seed: 11
aggregate_rate: 50
num_requests: 12
clients:
  - id: chat
    tenant_id: acme
    slo_class: critical
    rate_fraction: 1
    arrival: { process: poisson }
    prefix_group: system
    prefix_length: 8
    input_distribution: { type: constant, params: { value: 4 } }
    output_distribution: { type: constant, params: { value: 3 } }
`;
const SPEC = parseWorkloadSpec(SPEC_TEXT);
const TRACE = exportTraceV2(generateWorkloadRequests(SPEC), { header: { workload_seed: 11 }, prefixes: tracePrefixesFromSpec(SPEC) });

/** The error readWorkloadInput throws for a path, as the CLI prints it. */
function errorOf(path: string): WorkloadInputError {
  try {
    readWorkloadInput(path);
  } catch (error) {
    if (error instanceof WorkloadInputError) return error;
    throw error;
  }
  throw new Error(`${path} was read`);
}

describe('readWorkloadInput', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-workload-input-'));
  });
  const writeTrace = (name: string, where = dir) => {
    writeFileSync(join(where, `${name}.yaml`), TRACE.header);
    writeFileSync(join(where, `${name}.csv`), TRACE.csv);
  };

  it('reads a workload spec as before: generated requests, the spec in the report, mode generated on export', () => {
    writeFileSync(join(dir, 'w.yaml'), SPEC_TEXT);
    const input = readWorkloadInput(join(dir, 'w.yaml'));
    expect(input).toMatchObject({ kind: 'spec', file: join(dir, 'w.yaml'), spec: SPEC, seed: 11 });
    expect(input.requests).toEqual(generateWorkloadRequests(SPEC));
    expect(input.traceMeta.header).toEqual({ mode: 'generated', workload_spec: join(dir, 'w.yaml'), workload_seed: 11 });
  });

  it('reads a trace by its header, by its CSV and by its folder, all the same: header in the report, mode replayed on export', () => {
    writeTrace('t');
    const byHeader = readWorkloadInput(join(dir, 't.yaml'));
    expect(byHeader.kind).toBe('trace');
    expect(byHeader.file).toBe(join(dir, 't.yaml'));
    expect(byHeader.spec).toMatchObject({ trace_version: 2, workload_seed: 11 });
    expect(byHeader.requests).toHaveLength(12);
    expect(byHeader.requests.map((r) => [r.clientId, r.fairnessId, r.sloClass, r.inputTokens.length, r.maxTokens])).toEqual(generateWorkloadRequests(SPEC).map((r) => [r.clientId, r.fairnessId, r.sloClass, r.inputTokens.length, r.maxTokens]));
    expect(byHeader.traceMeta.header?.mode).toBe('replayed');
    expect(byHeader.traceMeta.requestPrefixes?.every((p) => p?.group === 'system' && p.length === 8)).toBe(true);
    expect(readWorkloadInput(join(dir, 't.csv'))).toEqual(byHeader);
    expect(readWorkloadInput(dir)).toEqual(byHeader);
  });

  it('names the half of a pair it looked for and did not find', () => {
    writeFileSync(join(dir, 'h.yaml'), TRACE.header);
    expect(errorOf(join(dir, 'h.yaml')).message).toBe(`${join(dir, 'h.yaml')}: is a TraceV2 header, but its CSV ${join(dir, 'h.csv')} does not exist (a trace is NAME.yaml with NAME.csv beside it)`);
    writeFileSync(join(dir, 'c.csv'), TRACE.csv);
    expect(errorOf(join(dir, 'c.csv')).message).toBe(`${join(dir, 'c.csv')}: is a TraceV2 CSV, but its header ${join(dir, 'c.yaml')} does not exist (a trace is NAME.yaml with NAME.csv beside it)`);
  });

  it('lists the pairs of a folder with several, and says so of a folder with none', () => {
    writeTrace('a');
    writeTrace('b');
    writeFileSync(join(dir, 'lonely.yaml'), TRACE.header);
    const several = errorOf(dir);
    expect(several.problem).toBe('holds 2 traces; name one of them:');
    expect(several.issues).toEqual([join(dir, 'a.yaml'), join(dir, 'b.yaml')]);
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(errorOf(empty).message).toBe(`${empty}: holds no TraceV2 trace (a NAME.yaml with NAME.csv beside it)`);
  });

  it('names the row and column of a bad trace, the key of a bad spec, and a path that does not exist', () => {
    writeFileSync(join(dir, 'bad.yaml'), TRACE.header);
    writeFileSync(join(dir, 'bad.csv'), TRACE.csv.replace(/\n0,chat,acme,critical,/, '\n0,chat,acme,urgent,'));
    const bad = errorOf(join(dir, 'bad.csv'));
    expect(bad.problem).toBe('is not a valid TraceV2 trace:');
    expect(bad.issues.join('\n')).toContain('row 1, column slo_class');
    writeFileSync(join(dir, 'w.yaml'), SPEC_TEXT.replace('aggregate_rate: 50', 'aggregate_rate: -1'));
    expect(errorOf(join(dir, 'w.yaml')).issues.join('\n')).toContain('aggregate_rate: must be > 0');
    expect(errorOf(join(dir, 'nope.yaml')).message).toBe(`${join(dir, 'nope.yaml')}: does not exist`);
  });
});
