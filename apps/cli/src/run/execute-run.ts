import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '@sluice/collections';
import { buildReport, type FitnessWeights } from '@sluice/metrics';
import { writeRunReports, type RunReportFile } from '@sluice/report';
import type { WorkloadSpec } from '@sluice/workload';
import type { Output } from '../terminal/output.js';
import { writeObservedTrace } from './export-trace.js';
import { warmUpClient } from './load-client.js';
import { EngineCounterScrape, workerUrlsFromConfig } from './engine-counters.js';
import { printRunSummary } from './print-run-summary.js';
import { Progress } from './progress.js';
import { workloadInputFromSpec, type WorkloadInput } from './read-workload-input.js';
import { runWorkload } from './run-workload.js';

/** The workload: a spec (as `sluice up`'s demo gives it), or any input readWorkloadInput read. */
type RunWorkloadSource = { readonly workloadFile: string; readonly spec: WorkloadSpec } | { readonly workload: WorkloadInput };

export type RunSettings = RunWorkloadSource & {
  readonly gateway: string;
  readonly model: string;
  readonly retries: number;
  /** Weights of the report's fitness (`--fitness-weights`); without them its fitness is null. */
  readonly fitnessWeights?: FitnessWeights;
  /** The API key every request carries (gateway.auth); its tenant replaces the workload's. */
  readonly apiKey?: string;
  /** Where report.json and report.html go (created if missing). */
  readonly outDir: string;
  readonly config: unknown;
  /** Print the summary as JSON (no progress line, no table). */
  readonly json: boolean;
  /** Also write the run as a TraceV2 trace (trace.yaml, trace.csv) in this folder. */
  readonly exportTraceDir?: string;
  /**
   * The worker processes' `http://host:port` whose /metrics give the report's engine counters
   * (cluster.json's `processes`); default: the config's worker address (workerUrlsFromConfig).
   */
  readonly workerUrls?: readonly string[];
};

/**
 * Runs a workload against a gateway and writes its report: the part of `sluice run` that `sluice
 * up` reuses for its demo. Returns the report and where it was written.
 */
export async function executeRun(settings: RunSettings, out: Output, progressStream: { write(s: string): unknown; isTTY?: boolean }): Promise<{ report: RunReportFile; jsonFile: string; htmlFile: string }> {
  const workload = 'workload' in settings ? settings.workload : workloadInputFromSpec(settings.workloadFile, settings.spec);
  const { requests } = workload;
  await warmUpClient(settings.gateway);
  // The workers' counters run from their start: a scrape now and one after the run give the run's share.
  const engineCounters = await EngineCounterScrape.start(settings.workerUrls ?? workerUrlsFromConfig(settings.config));
  const started = performance.now();
  const now = () => performance.now() - started;
  const startedAt = new Date().toISOString();
  const progress = settings.json ? undefined : new Progress(requests.length, progressStream, now);
  progress?.start();
  const records = await runWorkload(
    requests,
    { gateway: settings.gateway, model: settings.model, retries: settings.retries, ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }), now, random: seededRandom(workload.seed), sleep: (ms) => sleep(ms) },
    { onSent: () => progress?.onSent(), onRecord: (r) => progress?.onRecord(r) },
  );
  progress?.stop();
  const engine = await engineCounters.finish();

  const report: RunReportFile = {
    version: 1,
    tool: 'sluice run',
    startedAt,
    gateway: settings.gateway,
    workload: { file: workload.file, spec: workload.spec, requests: requests.length },
    config: settings.config,
    summary: buildReport(records, { expectedRequests: requests.length, ...(settings.fitnessWeights === undefined ? {} : { fitnessWeights: settings.fitnessWeights }) }),
    ...('section' in engine ? { engine: engine.section } : {}),
    records,
  };
  const paths = writeRunReports(settings.outDir, report);
  if (settings.exportTraceDir !== undefined) writeObservedTrace(settings.exportTraceDir, workload, records, { created_at: startedAt });
  // Below the progress line, which the table must not continue.
  if (!settings.json) out.line('');
  printRunSummary(out, report.summary, paths, settings.json);
  if ('why' in engine && !settings.json) out.line(`Engine counters: not in the report: ${engine.why}.`);
  return { report, ...paths };
}
