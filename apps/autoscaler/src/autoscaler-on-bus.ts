import type { Logger } from '@nestjs/common';
import { ControlRefusedError, type Bus } from '@sluice/bus';
import { subjects, WorkerInstanceCountsSchema, type Micros, type SetWorkerInstances } from '@sluice/contracts';
import type { AutoscalerDecision, AutoscalerEffects, AutoscalerSettings } from '@sluice/stages';
import { SpanKind, type Tracer } from '@sluice/telemetry';
import { directionOf, type AutoscalerMetrics } from './autoscaler.metrics.js';

/** How a size is sent to a worker that does not answer: asked again, a few times, then given up (it is gone, or will be swept). */
export interface SetInstancesRetry {
  readonly attempts: number;
  readonly timeoutMs: number;
  readonly pauseMs: number;
}

export const DEFAULT_SET_INSTANCES_RETRY: SetInstancesRetry = { attempts: 5, timeoutMs: 1_000, pauseMs: 500 };

/**
 * The autoscaler core's effects on the bus: a worker's new size goes to it as `set-instances`
 * (every worker process hears the verb; the one named answers), and each decision becomes a span,
 * its gauges and, when it changes the size, a log line.
 */
export class AutoscalerOnBus implements AutoscalerEffects {
  /** The last size sent to each worker: an older one still being retried gives way to it. */
  private readonly latest = new Map<string, number>();
  private sent = 0;

  constructor(
    private readonly bus: Bus,
    private readonly tracer: Tracer,
    private readonly metrics: AutoscalerMetrics,
    private readonly logger: Pick<Logger, 'log' | 'warn'>,
    private readonly settings: Pick<AutoscalerSettings, 'target'>,
    private readonly retry: SetInstancesRetry = DEFAULT_SET_INSTANCES_RETRY,
  ) {}

  setActive(workerId: string, instances: number, _atUs: Micros): void {
    const ask = ++this.sent;
    this.latest.set(workerId, ask);
    void this.send({ workerId, instances }, ask, 1);
  }

  decided(decision: AutoscalerDecision): void {
    this.metrics.decided(decision);
    this.tracer
      .startSpan('autoscaler.decide', {
        kind: SpanKind.INTERNAL,
        startTime: decision.atUs / 1000,
        attributes: {
          'sluice.autoscaler.metric': decision.metric,
          'sluice.autoscaler.value': decision.value,
          'sluice.autoscaler.current': decision.current,
          'sluice.autoscaler.ready': decision.ready,
          'sluice.autoscaler.recommended': decision.recommended,
          'sluice.autoscaler.stabilized': decision.stabilized,
          'sluice.autoscaler.desired': decision.desired,
          'sluice.autoscaler.rule': decision.rule,
        },
      })
      .end(decision.atUs / 1000);
    const direction = directionOf(decision);
    if (direction === 'none') return;
    const target = this.settings.target.kind === 'averageValue' ? `${this.settings.target.value} per instance` : `${this.settings.target.value}`;
    this.logger.log(
      `scale ${direction} ${decision.current} → ${decision.desired} (${decision.metric} ${round(decision.value)}, target ${target}; ` +
        `recommended ${decision.recommended}, stabilized ${decision.stabilized}, rule ${decision.rule}; ${decision.ready} ready)`,
    );
  }

  private async send(size: SetWorkerInstances, ask: number, attempt: number): Promise<void> {
    const { workerId, instances } = size;
    try {
      const counts = WorkerInstanceCountsSchema.parse(await this.bus.ask(subjects.control('worker', 'set-instances'), size, this.retry.timeoutMs));
      this.logger.log(`worker ${workerId} runs ${instances}: ${counts.starting} starting, ${counts.ready} ready, ${counts.draining} draining`);
    } catch (error) {
      if (this.latest.get(workerId) !== ask) return; // a newer size for this worker went out
      const why = (error as Error).message;
      if (error instanceof ControlRefusedError || attempt >= this.retry.attempts) {
        this.logger.warn(`worker ${workerId} did not take ${instances} instances (${attempt} attempt${attempt === 1 ? '' : 's'}): ${why}`);
        return;
      }
      // No answer (no responder, or none in time): the worker restarts, or the bus is away.
      await new Promise((resolve) => setTimeout(resolve, this.retry.pauseMs).unref());
      if (this.latest.get(workerId) === ask) await this.send(size, ask, attempt + 1);
    }
  }
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
