import type { FlowKey } from '@sluice/policies';
import type { FlowArrival, FlowEviction } from '@sluice/stages';
import { BoundedLabel, Gauge, SeriesBudget, type LeanCounter, type Registry } from '@sluice/telemetry';
import { createFlowRequestSeries } from './flow-control.request-series.js';
import { createFlowScrapeGauges, type GaugedQueue, type QueueReadings } from './flow-control.scrape-gauges.js';

export type { QueueReadings } from './flow-control.scrape-gauges.js';

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

/**
 * The `fairness_id` of a tracked flow past `metrics.maxTenantSeries`: flows past the budget share
 * one series per priority (llm-d's overflow value, as the gateway writes it).
 */
export const OVERFLOW_FLOW = 'other';

/**
 * Distinct priorities the overflow series keep; a later one reads `other` too. Priorities come from
 * the gateways' SLO classes and objectives, a handful, but the wire allows any integer.
 */
const OVERFLOW_PRIORITIES = 16;

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
 * flow-free books. Two kinds, in two files (libs/telemetry/README.md, "Lean series or
 * prom-client"): what a request writes (`flow-control.request-series.ts`, lean series bound once
 * per flow and model, here), and what a scrape reads (`flow-control.scrape-gauges.ts`, from the
 * per-flow counts kept here).
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

interface Observer {
  observe(value: number): void;
}

/** One model's queue in one flow: its counts (the scrape gauges read them) and bound series. */
interface ModelQueue extends GaugedQueue {
  requests: number;
  bytes: number;
  readonly queueDuration: Map<EppQueueOutcome, Observer>;
}

/** A tracked flow's series: one queue per model it has seen, and its enqueue decisions. */
interface FlowSeries {
  readonly fairnessId: string;
  readonly priority: string;
  readonly models: Map<string, ModelQueue>;
  readonly enqueue: Map<EppQueueOutcome, Observer>;
  /** An overflow series': the tracked flows sharing it (it leaves the page with the last of them). */
  sharers?: number;
}

const flowKeyOf = (fairnessId: string, priority: number) => `${fairnessId}\u0000${priority}`;
const both = (a: Observer, b: Observer): Observer => ({
  observe(value) {
    a.observe(value);
    b.observe(value);
  },
});

/**
 * At most `maxFlowSeries` flows have series of their own (metrics.maxTenantSeries): a tracked flow
 * costs ~17 kB of the page, so the 1,000 flows `maxFlows` allows made a 17.4 MB page. A flow past
 * the budget is written as `fairness_id="other"` at its priority, sharing those series with every
 * other such flow; a flow's slot is freed, and its series removed, when flow control forgets it,
 * as the Endpoint Picker's registry garbage-collects an idle flow
 * (kubernetes-sigs/gateway-api-inference-extension `pkg/epp/flowcontrol/registry/gc.go` @b015f3c).
 */
export function createFlowControlMetrics(registry: Registry, pool: string, readings: QueueReadings, maxFlowSeries: number): FlowControlMetrics {
  /** Every tracked flow's series: its own, or the overflow's it shares. */
  const flows = new Map<string, FlowSeries>();
  const overflow = new Map<string, FlowSeries>();
  const overflowPriority = new BoundedLabel(OVERFLOW_PRIORITIES, OVERFLOW_FLOW);
  const budget = new SeriesBudget(maxFlowSeries, { now: () => 0, onRelease: () => undefined });
  // Registered before the families, as the gateway's twin of it.
  const ownSeries: Gauge = new Gauge({
    name: 'sluice_metrics_tenant_series',
    help: 'Flows (fairness id × priority) with series of their own on this page (at most metrics.maxTenantSeries; the rest are fairness_id="other").',
    registers: [registry],
    collect() {
      ownSeries.set(budget.size);
    },
  });
  const series = createFlowRequestSeries(registry);
  const { queueDuration, enqueueDuration, arrivals, queueExits } = series;
  const gauges = createFlowScrapeGauges(registry, pool, readings, function* () {
    for (const [key, flow] of flows) if (budget.has(key)) yield* flow.models.values();
    for (const flow of overflow.values()) yield* flow.models.values();
  });

  const overflowSeries = (priority: number): FlowSeries => {
    const label = overflowPriority.of(String(priority));
    let flow = overflow.get(label);
    if (flow === undefined) {
      flow = { fairnessId: OVERFLOW_FLOW, priority: label, models: new Map(), enqueue: new Map(), sharers: 0 };
      overflow.set(label, flow);
    }
    flow.sharers! += 1;
    return flow;
  };
  /** A flow keeps the series it was given while tracked, own or shared, so its counts go where they came from. */
  const flowSeries = (fairnessId: string, priority: number): FlowSeries => {
    const key = flowKeyOf(fairnessId, priority);
    let flow = flows.get(key);
    if (flow === undefined) {
      // A flow that calls itself `other` is the overflow.
      flow = fairnessId !== OVERFLOW_FLOW && budget.admit(key) ? { fairnessId, priority: String(priority), models: new Map(), enqueue: new Map() } : overflowSeries(priority);
      flows.set(key, flow);
    }
    return flow;
  };
  const queueLabels = (flow: FlowSeries, model: string) => ({ fairness_id: flow.fairnessId, priority: flow.priority, inference_pool: pool, model_name: model, target_model_name: model });
  const modelQueue = (flow: FlowSeries, model: string): ModelQueue => {
    let queue = flow.models.get(model);
    if (queue === undefined) {
      queue = { requests: 0, bytes: 0, gauges: gauges.bind(queueLabels(flow, model)), queueDuration: new Map() };
      flow.models.set(model, queue);
    }
    return queue;
  };
  const enqueueSeries = (fairnessId: string, priority: string, outcome: EppQueueOutcome, cache: Map<EppQueueOutcome, Observer>): Observer => {
    let found = cache.get(outcome);
    if (found === undefined) {
      const labels = { fairness_id: fairnessId, priority, outcome };
      found = both(enqueueDuration[0].labels(labels), enqueueDuration[1].labels(labels));
      cache.set(outcome, found);
    }
    return found;
  };
  const untracked = new Map<EppQueueOutcome, Observer>();
  const cycle = both(series.dispatchCycle[0].labels(), series.dispatchCycle[1].labels());

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
      let found = queue.queueDuration.get(outcome);
      if (found === undefined) {
        const labels = { ...queueLabels(flow, request.model), outcome };
        found = both(queueDuration[0].labels(labels), queueDuration[1].labels(labels));
        queue.queueDuration.set(outcome, found);
      }
      found.observe(seconds);
    },
    dispatchCycle(seconds) {
      cycle.observe(seconds);
    },
    handoffs: series.handoffs,
    forgetFlow({ fairnessId, priority }) {
      const key = flowKeyOf(fairnessId, priority);
      const flow = flows.get(key);
      if (flow === undefined) return;
      flows.delete(key);
      if (budget.has(key)) budget.release(key);
      else {
        // A flow that shared the overflow's series leaves them to the others, and the last one takes them.
        flow.sharers! -= 1;
        if (flow.sharers! > 0) return;
        overflow.delete(flow.priority);
      }
      for (const outcome of flow.enqueue.keys()) for (const h of enqueueDuration) h.remove({ fairness_id: flow.fairnessId, priority: flow.priority, outcome });
      for (const [model, queue] of flow.models) {
        const labels = queueLabels(flow, model);
        gauges.remove(labels);
        for (const outcome of queue.queueDuration.keys()) for (const h of queueDuration) h.remove({ ...labels, outcome });
      }
    },
  };
}
