import type { RunRecord } from '@sluice/metrics';
import type { ChaosFaultReport } from '@sluice/report';
import { faultWindow, type Fault, type FaultRegistry } from '@sluice/workload';
import { baselineTtftP99, DEFAULT_BASELINE } from './measure/ttft-baseline.js';
import { detect, type CounterPoint } from './measure/detection.js';
import { DEFAULT_RECOVERY, recoveryMs } from './measure/recovery.js';
import type { StepResult } from './timeline.js';

/** A first token, or a silence within a stream, this many times the pre-fault TTFT p99 counts as the fault showing (detection). */
const SLOW_TTFT_FACTOR = 1.5;

interface Fired {
  readonly index: number;
  /** The scenario's offset: faults planned for one instant are one disturbance, whatever order they fired in. */
  readonly plannedMs: number;
  readonly startMs: number;
  /** When it stopped hurting: its undo, the end of a fault that ends with its start (a NATS restart), else its start (a kill is instantaneous; a fault never undone is measured from its start). */
  readonly anchorMs: number;
}

/**
 * What each fault did and cost: when it fired and was undone, how long until it showed (detect),
 * how long until TTFT was back (recover). Times on the run clock; t0 is the first request's send.
 */
export function faultReports(
  faults: readonly Fault[],
  steps: readonly StepResult[],
  t0: number,
  records: readonly RunRecord[],
  migrations: readonly CounterPoint[],
  registry: FaultRegistry,
): ChaosFaultReport[] {
  const fired: Fired[] = [];
  faults.forEach((fault, index) => {
    const start = steps.find((s) => s.step.fault === index && s.step.phase === 'start');
    if (start?.firedAtMs == null) return;
    const undo = steps.find((s) => s.step.fault === index && s.step.phase === 'undo');
    const endMs = registry.of(fault).endsWithItsStart === true ? start.doneAtMs : (undo?.firedAtMs ?? undefined);
    fired.push({ index, plannedMs: fault.atMs, startMs: start.firedAtMs, anchorMs: endMs ?? start.firedAtMs });
  });
  fired.sort((a, b) => a.startMs - b.startMs);

  return faults.map((fault, index) => {
    const window = faultWindow(fault);
    const start = steps.find((s) => s.step.fault === index && s.step.phase === 'start');
    const undo = steps.find((s) => s.step.fault === index && s.step.phase === 'undo');
    const errors = [start?.error, undo?.error].filter((e): e is string => e !== undefined);
    const definition = registry.of(fault);
    const base = {
      index,
      action: fault.action,
      target: definition.target(fault),
      ...(fault.note === undefined ? {} : { note: fault.note }),
      fault,
      plannedStartMs: t0 + window.startMs,
      plannedEndMs: window.endMs === undefined ? null : t0 + window.endMs,
      firedAtMs: start?.firedAtMs ?? null,
      undoneAtMs: definition.endsWithItsStart === true ? (start?.doneAtMs ?? null) : (undo?.firedAtMs ?? null),
      detail: [start?.detail ?? start?.skipped, undo?.detail ?? undo?.skipped].filter((d) => d !== undefined).join('; '),
      error: errors.length === 0 ? null : errors.join('; '),
    };
    const me = fired.find((f) => f.index === index);
    if (!me) return { ...base, detectMs: null, detectedBy: null, recoverMs: null, recovery: 'not fired', baselineTtftP99Ms: null };

    // Faults planned for one instant start the disturbance when the first of them fires. The
    // baseline starts after every earlier fault was over; evidence belongs here until the next starts.
    const startMs = Math.min(...fired.filter((f) => f.plannedMs === fault.atMs).map((f) => f.startMs));
    const over = fired.filter((f) => f.plannedMs < fault.atMs && f.anchorMs <= startMs);
    const notBeforeMs = Math.max(t0, ...over.map((f) => f.anchorMs));
    const baseline = baselineTtftP99(records, startMs, { ...DEFAULT_BASELINE, notBeforeMs });
    const next = fired.find((f) => f.plannedMs > fault.atMs);
    const detection = detect({ startMs, untilMs: next?.startMs ?? Infinity, records, migrations, slowTtftMs: baseline === null ? null : SLOW_TTFT_FACTOR * baseline });
    const recovered = baseline === null ? null : recoveryMs(records, me.anchorMs, baseline, DEFAULT_RECOVERY);
    return {
      ...base,
      detectMs: detection === null ? null : detection.atMs - startMs,
      detectedBy: detection?.signal ?? null,
      recoverMs: recovered,
      recovery: baseline === null ? 'no baseline (too few requests before the fault)' : recovered === null ? 'not recovered' : 'recovered',
      baselineTtftP99Ms: baseline,
    };
  });
}
