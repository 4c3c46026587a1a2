import { Gauge, deprecatedEppHelp, eppHelp, type Registry } from '@sluice/telemetry';
import { FLOW_QUEUE_LABELS, flowControlNames, type FlowQueueLabel } from './flow-control.metric-names.js';

/** What flow control knows at scrape time, beyond its per-flow counts. */
export interface QueueReadings {
  queuedByModel(): ReadonlyMap<string, number>;
  saturation(): number;
  trackedFlows(): number;
}

interface Setter {
  set(value: number): void;
}

/** The gauge series of one flow's queue for one model: its size and bytes, current name and deprecated twin. */
export interface QueueGaugeSeries {
  readonly size: readonly [Setter, Setter];
  readonly bytes: readonly [Setter, Setter];
}

/** One flow's queue for one model, as a scrape reads it: its counts, kept on the request path, and its bound gauge series. */
export interface GaugedQueue {
  readonly requests: number;
  readonly bytes: number;
  readonly gauges: QueueGaugeSeries;
}

export interface FlowScrapeGauges {
  /** The series of a flow's model queue, bound once; they read 0 until a scrape sets them. */
  bind(labels: Record<FlowQueueLabel, string>): QueueGaugeSeries;
  /** Takes a forgotten flow's model queue off the page. */
  remove(labels: Record<FlowQueueLabel, string>): void;
}

/**
 * Flow control's gauges computed when Prometheus scrapes: prom-client's `Gauge` with `collect`,
 * reading counts the request path keeps as plain numbers, so a request pays nothing for them
 * (libs/telemetry/README.md, "Lean series or prom-client"). Every tracked flow's models are
 * listed, at 0 when nothing waits.
 */
export function createFlowScrapeGauges(registry: Registry, pool: string, readings: QueueReadings, queues: () => Iterable<GaugedQueue>): FlowScrapeGauges {
  /** A per-(flow, model) gauge pair, set from each queue's counts at scrape time. */
  const queueGauges = (suffix: string, help: string, read: (q: GaugedQueue) => number, pick: (q: GaugedQueue) => readonly [Setter, Setter]) => {
    const { current, legacy } = flowControlNames(suffix);
    const collect = (which: 0 | 1) => () => {
      for (const queue of queues()) pick(queue)[which].set(read(queue));
    };
    return [
      new Gauge<FlowQueueLabel>({ name: current, help: eppHelp(help), labelNames: FLOW_QUEUE_LABELS, registers: [registry], collect: collect(0) }),
      new Gauge<FlowQueueLabel>({ name: legacy, help: deprecatedEppHelp(current, help), labelNames: FLOW_QUEUE_LABELS, registers: [registry], collect: collect(1) }),
    ] as const;
  };
  const queueSize = queueGauges(
    'queue_size',
    'Requests waiting in flow control, per flow and model.',
    (q) => q.requests,
    (q) => q.gauges.size,
  );
  const queueBytes = queueGauges(
    'queue_bytes',
    'Request body bytes waiting in flow control, per flow and model.',
    (q) => q.bytes,
    (q) => q.gauges.bytes,
  );

  const saturationHelp = 'The saturation detector’s reading of the pool: 0 idle, 1 or more saturated (dispatch holds).';
  const saturation: Gauge<'inference_pool' | 'stage'> = new Gauge({
    name: flowControlNames('pool_saturation').current,
    help: eppHelp(`${saturationHelp} sluice has one detector: stage is always "effective".`),
    labelNames: ['inference_pool', 'stage'],
    registers: [registry],
    collect() {
      saturation.set({ inference_pool: pool, stage: 'effective' }, readings.saturation());
    },
  });
  const legacySaturation: Gauge<'inference_pool'> = new Gauge({
    name: flowControlNames('pool_saturation').legacy,
    help: deprecatedEppHelp(flowControlNames('pool_saturation').current, saturationHelp),
    labelNames: ['inference_pool'],
    registers: [registry],
    collect() {
      legacySaturation.set({ inference_pool: pool }, readings.saturation());
    },
  });
  const queued: Gauge<'model'> = new Gauge({
    name: 'dynamo_queued_requests',
    help: 'Requests waiting in the gateway-side queue, per model (Dynamo’s name).',
    labelNames: ['model'],
    registers: [registry],
    collect() {
      queued.reset();
      for (const [model, count] of readings.queuedByModel()) queued.set({ model }, count);
    },
  });
  const tracked: Gauge = new Gauge({
    name: 'sluice_flow_tracked_flows',
    help: 'Flows flow control tracks now: with queued requests, or idle and not yet forgotten (at most flowController.maxFlows).',
    registers: [registry],
    collect() {
      tracked.set(readings.trackedFlows());
    },
  });

  return {
    bind: (labels) => ({ size: [queueSize[0].labels(labels), queueSize[1].labels(labels)], bytes: [queueBytes[0].labels(labels), queueBytes[1].labels(labels)] }),
    remove(labels) {
      for (const g of [...queueSize, ...queueBytes]) g.remove(labels);
    },
  };
}
