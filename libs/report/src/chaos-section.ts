/**
 * The `chaos` section of a report.json that `sluice chaos` wrote: the scenario, what each fault
 * did and when, the invariants checked at the end, and what the faults cost (migrations, time to
 * detect, time to recover). Times are ms on the run's clock, the records' clock, so the faults
 * line up with the requests.
 */

export type InvariantStatus = 'pass' | 'fail' | 'skipped';

export interface InvariantResult {
  /** Short stable id, e.g. `one-terminal-outcome`. */
  readonly id: string;
  /** What it asserts, in a line. */
  readonly title: string;
  readonly status: InvariantStatus;
  /** The numbers compared, and why a part was skipped. */
  readonly details: readonly string[];
}

export interface ChaosFaultReport {
  /** The fault's index in the scenario. */
  readonly index: number;
  readonly action: string;
  /** The process, instance or subject it hit. */
  readonly target: string;
  readonly note?: string;
  /** The fault as run (after any scaling), for the record. */
  readonly fault: unknown;
  /** Planned start and end on the run clock (the first request's send time + the offsets). */
  readonly plannedStartMs: number;
  readonly plannedEndMs: number | null;
  /** When it really fired and was undone; null if it was not. */
  readonly firedAtMs: number | null;
  readonly undoneAtMs: number | null;
  /** What was done (`SIGKILL pid 4711`), or why it failed or was skipped. */
  readonly detail: string;
  readonly error: string | null;
  /** From the start to the first client-visible effect; null if none was seen before the next fault. */
  readonly detectMs: number | null;
  /** What was seen first: a failed request, a migration, a slow first token. */
  readonly detectedBy: string | null;
  /** From the end (or the start, for faults never undone) until TTFT p99 was back; null if it never was. */
  readonly recoverMs: number | null;
  /** `recovered`, `not recovered`, or why it could not be measured (`no baseline`). */
  readonly recovery: string;
  /** The pre-fault TTFT p99 the recovery was measured against. */
  readonly baselineTtftP99Ms: number | null;
}

export interface ChaosProcessReport {
  readonly name: string;
  /** pid (local) or container id (compose) at the end of the run. */
  readonly id: string;
  readonly restarts: number;
}

export interface ChaosSection {
  readonly scenario: { readonly name: string; readonly description: string; readonly file: string; readonly scale: number };
  readonly target: 'local' | 'compose';
  /** Run clock time of the first request: the faults' offsets count from here. */
  readonly t0Ms: number;
  readonly faults: readonly ChaosFaultReport[];
  readonly invariants: readonly InvariantResult[];
  /** True when no invariant failed and every fault could be injected. */
  readonly passed: boolean;
  /** Re-submissions the gateway made (`sluice_migrations_total`), by reason. */
  readonly migrations: { readonly total: number; readonly byReason: Readonly<Record<string, number>> };
  /** Client-side terminal outcomes by `outcome/reason`. */
  readonly outcomesByReason: Readonly<Record<string, number>>;
  readonly processesBefore: readonly ChaosProcessReport[];
  readonly processesAfter: readonly ChaosProcessReport[];
}
