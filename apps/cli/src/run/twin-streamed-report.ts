import { join } from 'node:path';
import { StreamedReport } from '@sluice/metrics';
import { RECORDS_FILE, RecordsFileWriter, StreamedPlots, engineSection, type RunReportFile, type StreamedPage } from '@sluice/report';
import { simulateStreamed, type TwinStreamResult } from '@sluice/twin';
import { generateWorkload, type WorkloadRequest, type WorkloadSpec } from '@sluice/workload';
import type { WorkloadInput } from './read-workload-input.js';
import { twinAutoscalerSection } from './twin-autoscaler-section.js';
import { reportHead, twinRunOf, type TwinRunOptions } from './twin-report.js';

/** Requests above which `sluice simulate` streams when `twin.streamAbove` is not set. */
export const DEFAULT_STREAM_ABOVE = 200_000;

/**
 * How many requests a workload will offer, known before it is generated: a trace's rows, a spec's
 * num_requests, or without one aggregate_rate × horizon (its expected count: a Poisson workload
 * offers about that many).
 */
export function plannedRequests(workload: WorkloadInput): number {
  if (workload.kind === 'trace') return workload.requests.length;
  const spec = workload.spec as WorkloadSpec;
  return spec.num_requests ?? Math.ceil(spec.aggregate_rate * (spec.horizon ?? 0));
}

/**
 * One workload through the twin streamed (docs/twin.md, "Streamed runs"): a spec's requests read
 * from its generator one at a time, each record written to records.ndjson in `outDir` as it
 * settles and counted into the summary and the plots' sample, then dropped. The report is the kept
 * run's (`twinReport`), field for field, but names its records file instead of holding them.
 */
export function twinStreamedReport(workload: WorkloadInput, options: TwinRunOptions, outDir: string): { readonly result: TwinStreamResult; readonly report: RunReportFile; readonly page: StreamedPage } {
  const run = twinRunOf(options);
  if (run.twin.chaos !== undefined) throw new Error('a chaos run cannot be streamed: its report reads every record');
  const summary = new StreamedReport(options.fitnessWeights === undefined ? {} : { fitnessWeights: options.fitnessWeights });
  const plots = new StreamedPlots(options.seed ?? 0);
  const records = new RecordsFileWriter(join(outDir, RECORDS_FILE));
  let result: TwinStreamResult;
  try {
    result = simulateStreamed(requestsOf(workload), (record) => {
      records.write(record);
      summary.add(record);
      plots.add(record);
    }, run.twin);
  } finally {
    records.close();
  }
  const summarized = summary.report(result.requests);
  const report: RunReportFile = {
    ...reportHead(workload, result.requests, run),
    summary: summarized,
    engine: engineSection(result.engine, 'kv-blocks'),
    ...twinAutoscalerSection(result.autoscaler, options.config, summarized),
    records: [],
    recordsFile: RECORDS_FILE,
  };
  return { result, report, page: plots.page() };
}

/** A spec's requests from its generator, one at a time (the same ones `generateWorkloadRequests` lists); a trace's as read. */
function requestsOf(workload: WorkloadInput): Iterable<WorkloadRequest> {
  return workload.kind === 'spec' ? generateWorkload(workload.spec as WorkloadSpec) : workload.requests;
}
