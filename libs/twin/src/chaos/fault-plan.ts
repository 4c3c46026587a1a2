import { faultWindow, twinPlan, type Fault, type FaultRegistry, type TwinFaultPort, type TwinFaultRun } from '@sluice/workload';

/** One fault of a scenario as the twin will run it, or why it will not. */
export interface PlannedFault {
  /** Its index in the scenario. */
  readonly index: number;
  readonly fault: Fault;
  /** The process, instances or subject it hits, in a few words. */
  readonly target: string;
  /** Virtual µs: the first request's arrival plus the fault's offsets. */
  readonly startUs: number;
  readonly endUs: number | undefined;
  /** Why the twin leaves it out; undefined when it is modelled. */
  readonly skipped: string | undefined;
  /** What it does at its start and end, when it is modelled. */
  readonly run: TwinFaultRun | undefined;
}

/**
 * Reads a scenario's faults against the twin: when each fires and is undone (offsets count from
 * the first request, as live), and what each fault's own twin action makes of it (what it hits,
 * or why the twin cannot model it).
 */
export function planFaults(faults: readonly Fault[], t0Us: number, registry: FaultRegistry, twin: TwinFaultPort): PlannedFault[] {
  return faults.map((fault, index) => {
    const { startMs, endMs } = faultWindow(fault);
    const plan = twinPlan(registry.of(fault), fault, twin);
    return {
      index,
      fault,
      target: plan.target,
      startUs: t0Us + startMs * 1000,
      endUs: endMs === undefined ? undefined : t0Us + endMs * 1000,
      skipped: plan.notModelled,
      run: plan.run,
    };
  });
}
