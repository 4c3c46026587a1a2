import type { FlowQueueReport, Micros } from '@sluice/contracts';
import type { AdmissionSignals, ClusterView, StepCoefficients } from '@sluice/policies';
import { FlowQueueBoard } from './flow-queue-board.js';
import { InFlightLedger, type InFlightLedgerSettings } from './in-flight-ledger.js';

export interface PredictiveInputsSettings {
  readonly ledger: InFlightLedgerSettings;
  /** A flow controller's queue report counts this long after it was taken (a silent controller's is dropped). */
  readonly queueReportMaxAgeUs: Micros;
  /** Step-time coefficients per served model, from its profile (already scaled by `timeScale`). */
  readonly stepCoefficients: Readonly<Record<string, StepCoefficients>>;
}

/**
 * Admission's inputs beyond the instances' snapshots (docs/behaviour.md §2, "predictive inputs"):
 * its in-flight ledger, flow control's queue reports and the serving models' coefficients, handed
 * to the policy as the view's `admission` signals. Pure: times are passed in.
 */
export class PredictiveInputs {
  private readonly ledger: InFlightLedger;
  private readonly queues: FlowQueueBoard;

  constructor(private readonly settings: PredictiveInputsSettings) {
    this.ledger = new InFlightLedger(settings.ledger);
    this.queues = new FlowQueueBoard(settings.queueReportMaxAgeUs);
  }

  admitted(model: string, nowUs: Micros): void {
    this.ledger.admitted(model, nowUs);
  }

  onQueueReport(report: FlowQueueReport): void {
    this.queues.onReport(report);
  }

  expire(nowUs: Micros): void {
    this.queues.expire(nowUs);
    this.ledger.expire(nowUs);
  }

  /** Entries the ledger holds now, every model (bounded by `maxPerModel` per model). */
  get ledgerSize(): number {
    return this.ledger.size;
  }

  /** The signals of one decision at `nowUs`, over the view it is taken on. */
  signals(view: ClusterView, nowUs: Micros): AdmissionSignals {
    const { ledger, queues, settings } = this;
    return {
      unseenAdmitted: (model) => ledger.unseen(model, this.watermarkUs(view, model, nowUs), nowUs),
      queuedAhead: (model, priority) => queues.queuedAhead(model, priority, nowUs),
      queueReportAgeUs: () => {
        const oldest = queues.oldestAtUs(nowUs);
        return oldest === undefined ? undefined : ((nowUs - oldest) as Micros);
      },
      stepCoefficients: (model) => (Object.hasOwn(settings.stepCoefficients, model) ? settings.stepCoefficients[model] : undefined),
    };
  }

  /**
   * The oldest report that could show a request of `model`: its instances' snapshots and, when
   * flow controllers report, their queue reports. -Infinity while an instance has sent none or
   * none serves the model (nothing is retired then but by age).
   */
  private watermarkUs(view: ClusterView, model: string, nowUs: Micros): number {
    let watermark = Number.POSITIVE_INFINITY;
    for (const instance of view.instances) if (instance.model === model) watermark = Math.min(watermark, nowUs - instance.snapshotAgeUs);
    if (watermark === Number.POSITIVE_INFINITY) return Number.NEGATIVE_INFINITY;
    const reportAtUs = this.queues.oldestAtUs(nowUs);
    return reportAtUs === undefined ? watermark : Math.min(watermark, reportAtUs);
  }
}
