import type { StageTimings } from '@sluice/contracts';
import type { RequestRecord, RunReport } from '@sluice/metrics';

/**
 * One request as `sluice run` saw it from the client side, plus what the gateway told it at the
 * end (the stage timings and the instance that served it, from the stream's last chunk). Times are
 * milliseconds since the run started.
 */
export interface RunRecord extends RequestRecord {
  /** The HTTP status (0 when the connection itself failed). */
  readonly status: number;
  readonly priority: number;
  /** The worker instance that served it (completed requests). */
  readonly instance?: string;
  /** Per-stage durations the pipeline measured (completed requests). */
  readonly timings?: StageTimings;
  /** Attempts made (1 + retries of 503). */
  readonly attempts: number;
}

/** `report.json`: what a run produced and what produced it. */
export interface RunReportFile {
  readonly version: 1;
  readonly tool: 'sluice run';
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
  /** Aggregates by the rules of BEHAVIOUR.md §5 (libs/metrics). */
  readonly summary: RunReport;
  readonly records: readonly RunRecord[];
}
