import type { RunRecord } from '@sluice/metrics';
import type { Fault, FaultAction } from '@sluice/workload';

/**
 * What became of one fault of a scenario in the twin. The fields it shares with a live chaos
 * run's fault report (`sluice chaos`: index, action, target, note, fault, planned and fired
 * times, detail) have the same names and meaning, so the two line up fault by fault; times are
 * virtual ms, the records' clock.
 */
export interface TwinFaultReport {
  readonly index: number;
  readonly action: FaultAction;
  readonly target: string;
  readonly note?: string;
  readonly fault: Fault;
  /** False: the twin cannot model it, and `detail` says why. */
  readonly modelled: boolean;
  /** The first request's arrival plus the fault's offsets. */
  readonly plannedStartMs: number;
  readonly plannedEndMs: number | null;
  /** When the twin did and undid it; null if it did not. */
  readonly firedAtMs: number | null;
  readonly undoneAtMs: number | null;
  /** What was done (and undone), or why it was not. */
  readonly detail: string;
}

/** The chaos part of a twin run: each fault, the warnings for those not modelled, and what they cost. */
export interface TwinChaosReport {
  /** Virtual time of the first request: the faults' offsets count from here. */
  readonly t0Ms: number;
  readonly faults: readonly TwinFaultReport[];
  /** One line per fault the twin left out: "not modelled in the twin: …". */
  readonly notModelled: readonly string[];
  /** Re-submissions the twin's gateway made, by reason (the live `sluice_migrations_total`). */
  readonly migrations: { readonly total: number; readonly byReason: Readonly<Record<string, number>> };
  /** Client-side terminal outcomes: `completed`, or `outcome/reason` (as `sluice chaos` counts them). */
  readonly outcomesByReason: Readonly<Record<string, number>>;
}

export function outcomesByReason(records: readonly RunRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of records) {
    const key = r.outcome === 'completed' ? 'completed' : `${r.outcome}/${r.reason ?? 'unspecified'}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
