import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { seededRandom } from '@sluice/collections';
import { buildReport, type FitnessWeights } from '@sluice/metrics';
import { clientLagSection, gaugeAutoscalerSection, writeRunReports, type RunReportFile } from '@sluice/report';
import type { WorkloadSpec } from '@sluice/workload';
import type { Output } from '../terminal/output.js';
import { AutoscalerGaugeSampler, autoscalerUrlFromConfig } from './autoscaler-gauges.js';
import { writeObservedTrace } from './export-trace.js';
import { warmUpClient, type RequestHeaders } from './load-client.js';
import { EngineCounterScrape, workerUrlsFromConfig } from './engine-counters.js';
import { printRunSummary } from './print-run-summary.js';
import { Progress, type ProgressStream } from './progress.js';
import { workloadInputFromSpec, type WorkloadInput } from './read-workload-input.js';
import { runWorkload } from './run-workload.js';
import { absentFromTarget } from './target-endpoint.js';

/** The workload: a spec (as `sluice up`'s demo gives it), or any input readWorkloadInput read. */
type RunWorkloadSource = { readonly workloadFile: string; readonly spec: WorkloadSpec } | { readonly workload: WorkloadInput };

export type RunSettings = RunWorkloadSource & {
  /** Where requests go: sluice's gateway, or the `--target` endpoint's base URL. */
  readonly gateway: string;
  /**
   * An endpoint other than sluice's own gateway (`sluice run --target`): warmed through
   * `/v1/models`, sent sluice's request headers only when asked, no sluice workers scraped, and
   * the report's `target` section names what it could not give.
   */
  readonly target?: { readonly requestHeaders: RequestHeaders };
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
export async function executeRun(settings: RunSettings, out: Output, progressStream: ProgressStream): Promise<{ report: RunReportFile; jsonFile: string; htmlFile: string }> {
  const workload = 'workload' in settings ? settings.workload : workloadInputFromSpec(settings.workloadFile, settings.spec);
  const { requests } = workload;
  const { target } = settings;
  await warmUpClient(settings.gateway, target ? '/v1/models' : '/healthz', settings.apiKey);
  // The workers' counters run from their start: a scrape now and one after the run give the run's
  // share. A target's engines are not sluice's workers (and the config's worker port may well be
  // a local cluster's that the run never touches), so there is nothing to scrape.
  const engineCounters = target ? undefined : await EngineCounterScrape.start(settings.workerUrls ?? workerUrlsFromConfig(settings.config));
  const started = performance.now();
  const now = () => performance.now() - started;
  const startedAt = new Date().toISOString();
  // With an autoscaler, its gauges each second give the report's instance timeline.
  const autoscalerUrl = target ? undefined : autoscalerUrlFromConfig(settings.config);
  const autoscaler = autoscalerUrl === undefined ? undefined : AutoscalerGaugeSampler.start(autoscalerUrl, now);
  const progress = settings.json ? undefined : new Progress(requests.length, progressStream, now);
  progress?.start();
  const records = await runWorkload(
    requests,
    { gateway: settings.gateway, model: settings.model, ...(target ? { headers: target.requestHeaders } : {}), retries: settings.retries, ...(settings.apiKey === undefined ? {} : { apiKey: settings.apiKey }), now, random: seededRandom(workload.seed), sleep: (ms) => sleep(ms) },
    { onSent: () => progress?.onSent(), onRecord: (r) => progress?.onRecord(r) },
  );
  progress?.stop();
  const engine = engineCounters ? await engineCounters.finish() : { why: 'sluice reads them from its own workers’ /metrics, and a --target’s engines are not its workers' };
  const clientLag = clientLagSection(records);
  const readings = await autoscaler?.stop();
  const summary = buildReport(records, { expectedRequests: requests.length, ...(settings.fitnessWeights === undefined ? {} : { fitnessWeights: settings.fitnessWeights }) });
  const metric = (settings.config as { autoscaler?: { metric?: string } } | null | undefined)?.autoscaler?.metric ?? 'unknown';

  const report: RunReportFile = {
    version: 1,
    tool: 'sluice run',
    startedAt,
    gateway: settings.gateway,
    workload: { file: workload.file, spec: workload.spec, requests: requests.length },
    config: settings.config,
    summary,
    ...('section' in engine ? { engine: engine.section } : {}),
    ...(readings && 'samples' in readings ? { autoscaler: gaugeAutoscalerSection(metric, readings.samples, autoscaler!.everyMs, summary) } : {}),
    ...(clientLag ? { clientLag } : {}),
    ...(target ? { target: { url: settings.gateway, model: settings.model, requestHeaders: target.requestHeaders, absent: absentFromTarget(records, 'why' in engine ? engine.why : undefined) } } : {}),
    records,
  };
  const paths = writeRunReports(settings.outDir, report);
  if (settings.exportTraceDir !== undefined) writeObservedTrace(settings.exportTraceDir, workload, records, { created_at: startedAt });
  // Below the progress line, which the table must not continue.
  if (!settings.json) out.line('');
  printRunSummary(out, report.summary, paths, settings.json, report.autoscaler);
  if (settings.json) return { report, ...paths };
  if ('why' in engine) out.line(`Engine counters: not in the report: ${engine.why}.`);
  if (readings && 'why' in readings) out.line(`Autoscaler: not in the report: ${readings.why}.`);
  if (target && !records.some((r) => r.timings !== undefined)) out.line('Stage timings: not in the report: the target sent none (sluice’s gateway sends them with --sluice-headers).');
  if (clientLag) out.line(`Client lag (actual − scheduled send): p50 ${clientLag.p50Ms.toFixed(2)} ms, p99 ${clientLag.p99Ms.toFixed(2)} ms, max ${clientLag.maxMs.toFixed(2)} ms.`);
  if (clientLag?.warning) out.line(out.yellow(`Warning: ${clientLag.warning}.`));
  return { report, ...paths };
}
