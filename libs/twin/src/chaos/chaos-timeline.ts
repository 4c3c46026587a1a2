import type { RunRecord } from '@sluice/metrics';
import type { Fault, FaultRegistry } from '@sluice/workload';
import type { Migration } from '../gateway.js';
import { outcomesByReason, type TwinChaosReport, type TwinFaultReport } from './chaos-report.js';
import { planFaults, type PlannedFault } from './fault-plan.js';
import type { TwinChaosHost } from './twin-fault-port.js';

interface Fired {
  firedAtUs: number | undefined;
  undoneAtUs: number | undefined;
  details: string[];
}

/**
 * A scenario's faults on the twin's agenda: each modelled fault fires at its virtual time (the
 * first request's arrival plus its offset, before anything else due then) and, with `forMs`, is
 * undone that much later; the others are listed as not modelled. `report` then says what each did.
 */
export class ChaosTimeline {
  private readonly plan: readonly PlannedFault[];
  private readonly fired = new Map<number, Fired>();

  constructor(
    private readonly host: TwinChaosHost,
    faults: readonly Fault[],
    private readonly t0Us: number,
    registry: FaultRegistry,
  ) {
    this.plan = planFaults(faults, t0Us, registry, host.faults);
  }

  /** One line per fault the twin leaves out. */
  get notModelled(): string[] {
    return this.plan.filter((p) => p.skipped !== undefined).map((p) => `not modelled in the twin: faults[${p.index}] ${p.skipped}`);
  }

  /** Puts every modelled fault (and its undoing) on the agenda. */
  schedule(): void {
    const { agenda } = this.host;
    for (const planned of this.plan) {
      const { run } = planned;
      if (run === undefined) continue;
      const fired: Fired = { firedAtUs: undefined, undoneAtUs: undefined, details: [] };
      this.fired.set(planned.index, fired);
      agenda.at(planned.startUs, () => {
        fired.firedAtUs = agenda.nowUs;
        fired.details.push(run.start());
      });
      const { undo } = run;
      if (planned.endUs !== undefined && undo !== undefined) {
        agenda.at(planned.endUs, () => {
          fired.undoneAtUs = agenda.nowUs;
          fired.details.push(undo());
        });
      }
    }
  }

  report(records: readonly RunRecord[], migrations: readonly Migration[], byReason: Readonly<Record<string, number>>): TwinChaosReport {
    const ms = (us: number | undefined) => (us === undefined ? null : us / 1000);
    const faults = this.plan.map((planned): TwinFaultReport => {
      const fired = this.fired.get(planned.index);
      const { fault } = planned;
      return {
        index: planned.index,
        action: fault.action,
        target: planned.target,
        ...(fault.note === undefined ? {} : { note: fault.note }),
        fault,
        modelled: planned.skipped === undefined,
        plannedStartMs: planned.startUs / 1000,
        plannedEndMs: ms(planned.endUs),
        firedAtMs: ms(fired?.firedAtUs),
        undoneAtMs: ms(fired?.undoneAtUs),
        detail: planned.skipped ?? (fired?.details.join('; ') || 'not reached'),
      };
    });
    return { t0Ms: this.t0Us / 1000, faults, notModelled: this.notModelled, migrations: { total: migrations.length, byReason }, outcomesByReason: outcomesByReason(records) };
  }
}
