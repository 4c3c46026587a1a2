import type { SluiceConfig } from '@sluice/config';
import { buildReport, type FitnessWeights } from '@sluice/metrics';
import { engineSection, type RunReportFile } from '@sluice/report';
import { resolve } from 'node:path';
import { simulate, type HopLatencies, type TwinOptions, type TwinResult } from '@sluice/twin';
import type { Fault } from '@sluice/workload';
import { readHopSource, type HopSource } from './hop-source.js';
import type { WorkloadInput } from './read-workload-input.js';
import { twinAutoscalerSection } from './twin-autoscaler-section.js';

export interface TwinRunOptions {
  readonly config: SluiceConfig;
  readonly profile: TwinOptions['profile'];
  readonly hops?: HopLatencies;
  /** A live path to draw from (`--hop-latency-from`): wins over `hops` and the config's `twin.hopProfile`. */
  readonly hopSource?: HopSource;
  readonly seed?: number;
  readonly faults?: readonly Fault[];
  /** Weights of the report's fitness (`--fitness-weights`); without them its fitness is null. */
  readonly fitnessWeights?: FitnessWeights;
  /** Hears the stages' decisions as they are made (`--decision-trace`). */
  readonly observer?: TwinOptions['observer'];
}

/**
 * One workload through the twin, as the report `sluice simulate` writes: every command that runs
 * the twin (simulate, experiment) builds its report here, so their figures cannot differ.
 */
export function twinReport(workload: WorkloadInput, options: TwinRunOptions): { readonly result: TwinResult; readonly report: RunReportFile } {
  const { requests } = workload;
  const { fitnessWeights } = options;
  const run = twinRunOf(options);
  const result = simulate(requests, run.twin);
  const summary = buildReport(result.records, { expectedRequests: requests.length, ...(fitnessWeights === undefined ? {} : { fitnessWeights }) });
  const report: RunReportFile = {
    ...reportHead(workload, requests.length, run),
    summary,
    engine: engineSection(result.engine, 'kv-blocks'),
    ...twinAutoscalerSection(result.autoscaler, options.config, summary),
    records: result.records,
  };
  return { result, report };
}

/** What a twin run is given, resolved from the command's options: the twin's options and where its hops came from. */
export interface TwinRun {
  readonly twin: TwinOptions;
  readonly hops: HopLatencies | undefined;
  readonly source: HopSource | undefined;
}

export function twinRunOf(options: TwinRunOptions): TwinRun {
  const { config, profile, seed, faults, observer } = options;
  const source = options.hopSource ?? (options.hops === undefined ? configuredHopSource(config) : undefined);
  const hops = source?.hops ?? options.hops;
  const twin: TwinOptions = {
    config,
    profile,
    ...(hops ? { hops } : {}),
    ...(source?.samples ? { hopSamples: source.samples, pairedHops: source.paired ?? false } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(faults ? { chaos: { faults } } : {}),
    ...(observer ? { observer } : {}),
  };
  return { twin, hops, source };
}

/** Everything of report.json above its summary: what ran, on what, with which config. */
export function reportHead(workload: WorkloadInput, requests: number, run: TwinRun): Pick<RunReportFile, 'version' | 'tool' | 'startedAt' | 'gateway' | 'workload' | 'config'> {
  const { hops, source } = run;
  return {
    version: 1,
    tool: 'sluice simulate',
    // Virtual time starts at 0: a fixed stamp keeps the same inputs' report byte-identical.
    startedAt: new Date(0).toISOString(),
    gateway: 'twin (virtual time)',
    workload: { file: workload.file, spec: workload.spec, requests },
    config: { ...run.twin.config, ...(hops ? { hops } : {}), ...(source ? { hopSource: source.description } : {}) },
  };
}

/** `twin.hopProfile`, read from the working directory; a file that cannot be read stops the run, naming the key. */
export function configuredHopSource(config: SluiceConfig): HopSource | undefined {
  const file = config.twin.hopProfile;
  if (file === undefined) return undefined;
  try {
    return readHopSource(resolve(file), 'empirical');
  } catch (error) {
    throw new Error(`twin.hopProfile: ${(error as Error).message}`, { cause: error });
  }
}
