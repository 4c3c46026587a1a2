import type { FlowKey } from '@sluice/policies';
import type { FlowArrival, FlowEviction } from '@sluice/stages';
import { EPP_FAST_BUCKETS, EPP_QUEUE_BUCKETS, Gauge, LeanCounter, LeanHistogram, deprecatedEppHelp, eppHelp, type Registry } from '@sluice/telemetry';

/** How a request left the queue, in sluice's words (`sluice_flow_queue_exits_total`'s `outcome`). */
export type QueueExit = 'dispatched' | FlowEviction | 'handed_back';

/**
 * The Endpoint Picker's flow-control outcomes, as `QueueOutcome.String()` writes them
 * (kubernetes-sigs/gateway-api-inference-extension `pkg/epp/flowcontrol/types/outcomes.go`; llm-d
 * adds `RejectedNoEndpoints` and `EvictedNoEndpoints`, which sluice never reaches: a request with
 * no worker is refused by the router, after flow control). Rejected: never queued; evicted: dropped
 * after queuing.
 */
export type EppQueueOutcome = 'NotYetFinalized' | 'Dispatched' | 'RejectedCapacity' | 'RejectedOther' | 'EvictedTTL' | 'EvictedContextCancelled' | 'EvictedOther';

/**
 * sluice's flow-control outcomes → the Endpoint Picker's `outcome` label: the one table
 * (docs/metrics.md, "flow-controller"). sluice's own counters keep the detailed words.
 *
 * - `arrival` (the enqueue-duration histogram): the decision on an arriving request. One that is
 *   queued is still pending when its enqueue is recorded: `NotYetFinalized`, as the GAIE testdata
 *   shows. With flow control disabled nothing waits: passed on is `Dispatched`, shed for a
 *   saturated pool is `RejectedCapacity`.
 * - `exit` (the queue-duration histogram): how a queued request left. A gateway ending it
 *   (disconnect, its deadline, a re-submission) is the EPP's cancelled request context; handed back
 *   to its gateway (router unavailable, shutdown) is neither a dispatch nor a TTL: `EvictedOther`.
 */
export const EPP_OUTCOMES = {
  arrival: {
    enqueued: 'NotYetFinalized',
    flow_capacity: 'RejectedCapacity',
    too_many_flows: 'RejectedCapacity',
    shutdown: 'RejectedOther',
    passed_through: 'Dispatched',
    pool_saturated: 'RejectedCapacity',
  },
  exit: {
    dispatched: 'Dispatched',
    ttl_expired: 'EvictedTTL',
    client_disconnected: 'EvictedContextCancelled',
    timeout: 'EvictedContextCancelled',
    cancelled: 'EvictedContextCancelled',
    handed_back: 'EvictedOther',
    shutdown: 'EvictedOther',
  },
} as const satisfies { arrival: Record<FlowArrival['outcome'], EppQueueOutcome>; exit: Record<QueueExit, EppQueueOutcome> };

/**
 * The `fairness_id` and `priority` of a request whose flow was refused under `maxFlows`: one shared
 * series, since a per-tenant one would be exactly the unbounded state the cap exists to prevent.
 */
export const UNTRACKED_FLOW = '_untracked';

/** What the metrics need of a request. */
export interface FlowRequest {
  readonly fairnessId: string;
  readonly priority: number;
  readonly model: string;
  readonly bodyBytes: number;
}

/**
 * Flow control's metrics: the Endpoint Picker's six flow-control metrics under the current
 * `llm_d_epp_flow_control_*` names and the deprecated `inference_extension_flow_control_*` ones
 * side by side (the EPP's labels and outcome values), Dynamo's queued-requests gauge, and sluice's
 * flow-free books. Per-request calls write bound series, looked up by flow and model.
 */
export interface FlowControlMetrics {
  /** The decision on an arriving request, `seconds` after it arrived. */
  arrived(request: FlowRequest, outcome: FlowArrival['outcome'], seconds: number): void;
  /** It left the queue after `seconds` in it. */
  left(request: FlowRequest, exit: QueueExit, seconds: number): void;
  dispatchCycle(seconds: number): void;
  /** Handoffs to the router, by result (dispatched, router_unavailable, handed_back). */
  readonly handoffs: LeanCounter<'outcome'>;
  /** Removes a forgotten flow's series, of every model and outcome (docs/security.md, "Bounded state"). */
  forgetFlow(flow: FlowKey): void;
}

export interface QueueReadings {
  queuedByModel(): ReadonlyMap<string, number>;
  saturation(): number;
  trackedFlows(): number;
}

interface Observer {
  observe(value: number): void;
}
interface Setter {
  set(value: number): void;
}

/** One model's queue in one flow: its counts (the gauges read them at scrape time) and bound series. */
interface ModelQueue {
  requests: number;
  bytes: number;
  readonly size: readonly [Setter, Setter];
  readonly bytesGauge: readonly [Setter, Setter];
  readonly queueDuration: Map<EppQueueOutcome, Observer>;
}

/** A tracked flow's series: one queue per model it has seen, and its enqueue decisions. */
interface FlowSeries {
  readonly fairnessId: string;
  readonly priority: string;
  readonly models: Map<string, ModelQueue>;
  readonly enqueue: Map<EppQueueOutcome, Observer>;
}

const flowKeyOf = (fairnessId: string, priority: number) => `${fairnessId}\u0000${priority}`;
const both = (a: Observer, b: Observer): Observer => ({
  observe(value) {
    a.observe(value);
    b.observe(value);
  },
});

/** `llm_d_epp_flow_control_<suffix>` and its deprecated `inference_extension_flow_control_<suffix>` twin. */
const names = (suffix: string) => ({ current: `llm_d_epp_flow_control_${suffix}`, legacy: `inference_extension_flow_control_${suffix}` });

export function createFlowControlMetrics(registry: Registry, pool: string, readings: QueueReadings): FlowControlMetrics {
  const flows = new Map<string, FlowSeries>();
  const flowLabels = ['fairness_id', 'priority', 'inference_pool', 'model_name', 'target_model_name'] as const;
  type QueueLabel = (typeof flowLabels)[number];

  // Metric definitions: llm-d/llm-d-router pkg/epp/metrics/llm_d_router_metrics.go and metrics.go.
  const histograms = <L extends string>(suffix: string, help: string, labelNames: readonly L[], buckets: number[]) => {
    const { current, legacy } = names(suffix);
    return [
      new LeanHistogram<L>({ name: current, help: eppHelp(help), labelNames, buckets, registers: [registry] }),
      new LeanHistogram<L>({ name: legacy, help: deprecatedEppHelp(current, help), labelNames, buckets, registers: [registry] }),
    ] as const;
  };
  /** A per-(flow, model) gauge pair read from the counts at scrape time; every tracked flow's models are listed, at 0 when empty. */
  const queueGauges = (suffix: string, help: string, read: (q: ModelQueue) => number, pick: (q: ModelQueue) => readonly [Setter, Setter]) => {
    const { current, legacy } = names(suffix);
    const collect = (which: 0 | 1) => () => {
      for (const flow of flows.values()) for (const queue of flow.models.values()) pick(queue)[which].set(read(queue));
    };
    return [
      new Gauge<QueueLabel>({ name: current, help: eppHelp(help), labelNames: flowLabels, registers: [registry], collect: collect(0) }),
      new Gauge<QueueLabel>({ name: legacy, help: deprecatedEppHelp(current, help), labelNames: flowLabels, registers: [registry], collect: collect(1) }),
    ] as const;
  };

  const queueDuration = histograms(
    'request_queue_duration_seconds',
    'Time a request spent in flow control, from its arrival to its final outcome (dispatched, rejected or evicted).',
    ['fairness_id', 'priority', 'outcome', ...flowLabels.slice(2)] as const,
    EPP_QUEUE_BUCKETS,
  );
  const enqueueDuration = histograms(
    'request_enqueue_duration_seconds',
    'Time to decide on an arriving request (queued, rejected, or passed on with flow control disabled).',
    ['fairness_id', 'priority', 'outcome'] as const,
    EPP_FAST_BUCKETS,
  );
  const dispatchCycle = histograms('dispatch_cycle_duration_seconds', 'Time of one dispatch cycle: pick, saturation check, release of every request it lets go.', [], EPP_FAST_BUCKETS);
  const queueSize = queueGauges(
    'queue_size',
    'Requests waiting in flow control, per flow and model.',
    (q) => q.requests,
    (q) => q.size,
  );
  const queueBytes = queueGauges(
    'queue_bytes',
    'Request body bytes waiting in flow control, per flow and model.',
    (q) => q.bytes,
    (q) => q.bytesGauge,
  );
  const saturationHelp = 'The saturation detector’s reading of the pool: 0 idle, 1 or more saturated (dispatch holds).';
  const saturation: Gauge<'inference_pool' | 'stage'> = new Gauge({
    name: names('pool_saturation').current,
    help: eppHelp(`${saturationHelp} sluice has one detector: stage is always "effective".`),
    labelNames: ['inference_pool', 'stage'],
    registers: [registry],
    collect() {
      saturation.set({ inference_pool: pool, stage: 'effective' }, readings.saturation());
    },
  });
  const legacySaturation: Gauge<'inference_pool'> = new Gauge({
    name: names('pool_saturation').legacy,
    help: deprecatedEppHelp(names('pool_saturation').current, saturationHelp),
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
  const arrivals = new LeanCounter({
    name: 'sluice_flow_arrivals_total',
    help: 'Requests that reached flow control, by what became of them on arrival (sluice’s enqueue outcomes, over all flows).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const queueExits = new LeanCounter({
    name: 'sluice_flow_queue_exits_total',
    help: 'Requests that left a flow-control queue, by how (sluice’s queue-exit outcomes, over all flows).',
    labelNames: ['outcome'],
    registers: [registry],
  });

  const flowSeries = (fairnessId: string, priority: number): FlowSeries => {
    const key = flowKeyOf(fairnessId, priority);
    let flow = flows.get(key);
    if (flow === undefined) {
      flow = { fairnessId, priority: String(priority), models: new Map(), enqueue: new Map() };
      flows.set(key, flow);
    }
    return flow;
  };
  const queueLabels = (flow: FlowSeries, model: string) => ({ fairness_id: flow.fairnessId, priority: flow.priority, inference_pool: pool, model_name: model, target_model_name: model });
  const modelQueue = (flow: FlowSeries, model: string): ModelQueue => {
    let queue = flow.models.get(model);
    if (queue === undefined) {
      const labels = queueLabels(flow, model);
      queue = {
        requests: 0,
        bytes: 0,
        size: [queueSize[0].labels(labels), queueSize[1].labels(labels)],
        bytesGauge: [queueBytes[0].labels(labels), queueBytes[1].labels(labels)],
        queueDuration: new Map(),
      };
      flow.models.set(model, queue);
    }
    return queue;
  };
  const enqueueSeries = (fairnessId: string, priority: string, outcome: EppQueueOutcome, cache: Map<EppQueueOutcome, Observer>): Observer => {
    let series = cache.get(outcome);
    if (series === undefined) {
      const labels = { fairness_id: fairnessId, priority, outcome };
      series = both(enqueueDuration[0].labels(labels), enqueueDuration[1].labels(labels));
      cache.set(outcome, series);
    }
    return series;
  };
  const untracked = new Map<EppQueueOutcome, Observer>();
  const cycle = both(dispatchCycle[0].labels(), dispatchCycle[1].labels());

  return {
    arrived(request, outcome, seconds) {
      arrivals.inc({ outcome });
      const epp = EPP_OUTCOMES.arrival[outcome];
      // A refused flow is not tracked, so it gets no series of its own (they would never be removed);
      // nor does an arrival at shutdown, which nothing collects after.
      if (outcome === 'too_many_flows') {
        enqueueSeries(UNTRACKED_FLOW, UNTRACKED_FLOW, epp, untracked).observe(seconds);
        return;
      }
      if (outcome === 'shutdown') {
        const labels = { fairness_id: request.fairnessId, priority: String(request.priority), outcome: epp };
        for (const h of enqueueDuration) h.observe(labels, seconds);
        return;
      }
      const flow = flowSeries(request.fairnessId, request.priority);
      enqueueSeries(flow.fairnessId, flow.priority, epp, flow.enqueue).observe(seconds);
      // Every model a tracked flow has seen is listed, at 0 when nothing waits.
      const queue = modelQueue(flow, request.model);
      if (outcome === 'enqueued') {
        queue.requests += 1;
        queue.bytes += request.bodyBytes;
      }
    },
    left(request, exit, seconds) {
      queueExits.inc({ outcome: exit });
      const flow = flowSeries(request.fairnessId, request.priority);
      const queue = modelQueue(flow, request.model);
      queue.requests = Math.max(0, queue.requests - 1);
      queue.bytes = Math.max(0, queue.bytes - request.bodyBytes);
      const outcome = EPP_OUTCOMES.exit[exit];
      let series = queue.queueDuration.get(outcome);
      if (series === undefined) {
        const labels = { ...queueLabels(flow, request.model), outcome };
        series = both(queueDuration[0].labels(labels), queueDuration[1].labels(labels));
        queue.queueDuration.set(outcome, series);
      }
      series.observe(seconds);
    },
    dispatchCycle(seconds) {
      cycle.observe(seconds);
    },
    handoffs: new LeanCounter({
      name: 'sluice_flow_dispatched_total',
      help: 'Requests the flow controller passed to the router, by handoff outcome.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    forgetFlow({ fairnessId, priority }) {
      const key = flowKeyOf(fairnessId, priority);
      const flow = flows.get(key);
      if (flow === undefined) return;
      flows.delete(key);
      for (const outcome of flow.enqueue.keys()) for (const h of enqueueDuration) h.remove({ fairness_id: flow.fairnessId, priority: flow.priority, outcome });
      for (const [model, queue] of flow.models) {
        const labels = queueLabels(flow, model);
        for (const g of [...queueSize, ...queueBytes]) g.remove(labels);
        for (const outcome of queue.queueDuration.keys()) for (const h of queueDuration) h.remove({ ...labels, outcome });
      }
    },
  };
}
