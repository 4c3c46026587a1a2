import type { FlowKey } from '@sluice/policies';
import type { FlowArrival, FlowEviction } from '@sluice/stages';
import { Counter, Gauge, Histogram, type Registry } from '@sluice/telemetry';

/** How a request left the queue (the queue-duration histogram's `outcome`). */
export type QueueExit = 'dispatched' | FlowEviction | 'handed_back';

/** Every value each per-flow histogram's `outcome` takes: what a forgotten flow's series are removed by. */
const ARRIVAL_OUTCOMES = { enqueued: true, passed_through: true, pool_saturated: true, flow_capacity: true, too_many_flows: true, shutdown: true } as const satisfies Record<
  FlowArrival['outcome'],
  true
>;
const QUEUE_EXITS = { dispatched: true, ttl_expired: true, client_disconnected: true, timeout: true, shutdown: true, cancelled: true, handed_back: true } as const satisfies Record<
  QueueExit,
  true
>;

/**
 * The `fairness_id` and `priority` of a request whose flow was refused under `maxFlows`: one shared
 * series, since a per-tenant one would be exactly the unbounded state the cap exists to prevent.
 */
export const UNTRACKED_FLOW = '_untracked';

/**
 * Flow control's metrics under the Endpoint Picker's names and labels
 * (`inference_extension_flow_control_*`), so its dashboards read sluice unchanged, plus Dynamo's
 * queued-requests gauge. Gauges are read from the queues at scrape time.
 */
export interface FlowControlMetrics {
  /** Time from enqueue to leaving the queue, by how it left (dispatched, ttl_expired, …). */
  readonly queueDuration: Histogram<'fairness_id' | 'priority' | 'outcome'>;
  /** Time to decide on an arriving request (enqueued, flow_capacity, pool_saturated, passed_through). */
  readonly enqueueDuration: Histogram<'fairness_id' | 'priority' | 'outcome'>;
  readonly dispatchCycle: Histogram;
  /** Handoffs to the router, by result (dispatched, router_unavailable). */
  readonly handoffs: Counter<'outcome'>;
  /**
   * Arrivals and queue exits by outcome, without the flow: the books (chaos's stage-books check)
   * read these, since the per-flow histograms lose a flow's counts when the flow is forgotten.
   */
  readonly arrivals: Counter<'outcome'>;
  readonly queueExits: Counter<'outcome'>;
  /** Removes a forgotten flow's series from the per-flow histograms (the gauges are rebuilt at each scrape). */
  forgetFlow(flow: FlowKey): void;
}

export interface QueueReadings {
  flows(): readonly { fairnessId: string; priority: number; requests: number; bytes: number }[];
  queuedByModel(): ReadonlyMap<string, number>;
  saturation(): number;
  trackedFlows(): number;
}

const QUEUE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const FAST_BUCKETS = [1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2];

export function createFlowControlMetrics(registry: Registry, readings: QueueReadings): FlowControlMetrics {
  const flowLabels = ['fairness_id', 'priority'] as const;
  const queueSize: Gauge<'fairness_id' | 'priority'> = new Gauge({
    name: 'inference_extension_flow_control_queue_size',
    help: 'Requests waiting in flow control, per flow.',
    labelNames: flowLabels,
    registers: [registry],
    collect() {
      queueSize.reset();
      for (const f of readings.flows()) queueSize.set({ fairness_id: f.fairnessId, priority: String(f.priority) }, f.requests);
    },
  });
  const queueBytes: Gauge<'fairness_id' | 'priority'> = new Gauge({
    name: 'inference_extension_flow_control_queue_bytes',
    help: 'Request body bytes waiting in flow control, per flow.',
    labelNames: flowLabels,
    registers: [registry],
    collect() {
      queueBytes.reset();
      for (const f of readings.flows()) queueBytes.set({ fairness_id: f.fairnessId, priority: String(f.priority) }, f.bytes);
    },
  });
  const saturation: Gauge = new Gauge({
    name: 'inference_extension_flow_control_pool_saturation',
    help: 'The saturation detector’s reading of the pool (1 or more: saturated, dispatch holds).',
    registers: [registry],
    collect() {
      saturation.set(readings.saturation());
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
  const queueDuration = new Histogram({
    name: 'inference_extension_flow_control_request_queue_duration_seconds',
    help: 'Time requests spent queued in flow control, by how they left the queue.',
    labelNames: ['fairness_id', 'priority', 'outcome'],
    buckets: QUEUE_BUCKETS,
    registers: [registry],
  });
  const enqueueDuration = new Histogram({
    name: 'inference_extension_flow_control_request_enqueue_duration_seconds',
    help: 'Time to accept or reject an arriving request, by outcome.',
    labelNames: ['fairness_id', 'priority', 'outcome'],
    buckets: FAST_BUCKETS,
    registers: [registry],
  });
  return {
    queueDuration,
    enqueueDuration,
    dispatchCycle: new Histogram({
      name: 'inference_extension_flow_control_dispatch_cycle_duration_seconds',
      help: 'Time of one dispatch cycle (pick, saturation check, release of every request it lets go).',
      buckets: FAST_BUCKETS,
      registers: [registry],
    }),
    handoffs: new Counter({
      name: 'sluice_flow_dispatched_total',
      help: 'Requests the flow controller passed to the router, by handoff outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    arrivals: new Counter({
      name: 'sluice_flow_arrivals_total',
      help: 'Requests that reached flow control, by what became of them on arrival (the enqueue outcomes, over all flows).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    queueExits: new Counter({
      name: 'sluice_flow_queue_exits_total',
      help: 'Requests that left a flow-control queue, by how (the queue-duration outcomes, over all flows).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    forgetFlow(flow: FlowKey): void {
      const labels = { fairness_id: flow.fairnessId, priority: String(flow.priority) };
      for (const outcome of Object.keys(ARRIVAL_OUTCOMES)) enqueueDuration.remove({ ...labels, outcome });
      for (const outcome of Object.keys(QUEUE_EXITS)) queueDuration.remove({ ...labels, outcome });
    },
  };
}
