import type { RunRecord, RunReport } from '@sluice/metrics';
import type { AutoscalerSection } from './autoscaler-section.js';
import type { ChaosSection } from './chaos-section.js';
import type { ClientLagSection } from './client-lag.js';
import type { EngineSection } from './engine-section.js';

/** `report.json`: what a run produced and what produced it. */
export interface RunReportFile {
  readonly version: 1;
  /** What produced it: a live run, or the twin (virtual time). */
  readonly tool: 'sluice run' | 'sluice simulate' | 'sluice chaos';
  /** ISO time the run started. */
  readonly startedAt: string;
  readonly gateway: string;
  readonly workload: {
    readonly file: string;
    /** The parsed spec, so the report alone says what was sent. */
    readonly spec: unknown;
    readonly requests: number;
  };
  /** The cluster's resolved config, when the run could read it (a local `sluice up`). */
  readonly config: unknown;
  /** Aggregates by the rules of libs/metrics (docs/metrics.md). */
  readonly summary: RunReport;
  /** A chaos run's faults, invariants and measurements (`sluice chaos`). */
  readonly chaos?: ChaosSection;
  /**
   * A chaos scenario run in the twin (`sluice simulate --chaos`): what each fault did in virtual
   * time (libs/twin TwinChaosReport); its migrations read like the live section's.
   */
  readonly twinChaos?: { readonly migrations: ChaosSection['migrations'] };
  /**
   * What the instances' engines counted over the run: preemptions, KV allocation failures,
   * prefix-cache hit rate, per instance and for the cluster. Absent when they could not be read
   * (a live run whose workers did not answer), never zeros in their place.
   */
  readonly engine?: EngineSection;
  /**
   * A run with `autoscaler.enabled`: its decisions, the instances over time, each scale-up's
   * reaction time, instance-hours and goodput per instance-hour (docs/autoscaling.md).
   */
  readonly autoscaler?: AutoscalerSection;
  /** A live run: how far behind schedule the client sent (its latencies include it). */
  readonly clientLag?: ClientLagSection;
  /** A run against an endpoint other than sluice's own gateway (`sluice run --target`). */
  readonly target?: TargetSection;
  /**
   * The run's records, or, when `recordsFile` names them, none here: a streamed run keeps them in
   * that NDJSON file beside report.json (readReportJson reads them from it).
   */
  readonly records: readonly RunRecord[];
  /** Where a streamed run's records are: an NDJSON file, relative to report.json's folder. */
  readonly recordsFile?: string;
}

/** What `sluice run --target` drove, and what such an endpoint could not give. */
export interface TargetSection {
  /** The base URL requests went to (`<url>/v1/completions`). */
  readonly url: string;
  /** The model name sent (`--target-model`, else the one the endpoint serves). */
  readonly model: string;
  /** Whether sluice's own request headers went with each request (`--sluice-headers`). */
  readonly requestHeaders: 'sluice' | 'openai';
  /**
   * What the report leaves out because the endpoint did not give it, each with why (stage
   * timings, serving instance, engine counters): absent, never zeros in their place.
   */
  readonly absent: readonly string[];
}
