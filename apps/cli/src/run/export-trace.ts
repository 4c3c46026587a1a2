import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '@sluice/metrics';
import { exportTraceV2, type TraceV2Header } from '@sluice/workload';
import type { WorkloadInput } from './read-workload-input.js';

/**
 * `--export-trace DIR`: the run written back as a BLIS TraceV2 trace (DIR/trace.yaml and
 * DIR/trace.csv), each request's row with what became of it. Records are matched to requests by
 * id (`r<index>`, as the load client and the twin name them); a request without a record is
 * written as one that has not run.
 */
export function writeObservedTrace(dir: string, workload: WorkloadInput, records: readonly RunRecord[], header: Partial<TraceV2Header> = {}): { header: string; csv: string } {
  const byId = new Map(records.map((r) => [r.id, r]));
  const trace = exportTraceV2(workload.requests, {
    ...workload.traceMeta,
    header: { ...workload.traceMeta.header, ...header },
    observed: workload.requests.map((r) => byId.get(`r${r.index}`)),
  });
  mkdirSync(dir, { recursive: true });
  const files = { header: join(dir, 'trace.yaml'), csv: join(dir, 'trace.csv') };
  writeFileSync(files.header, trace.header);
  writeFileSync(files.csv, trace.csv);
  return files;
}
