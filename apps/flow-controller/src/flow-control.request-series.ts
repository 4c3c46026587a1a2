import { EPP_FAST_BUCKETS, EPP_QUEUE_BUCKETS, LeanCounter, LeanHistogram, deprecatedEppHelp, eppHelp, type Registry } from '@sluice/telemetry';
import { FLOW_QUEUE_LABELS, flowControlNames, type FlowQueueLabel } from './flow-control.metric-names.js';

type Pair<L extends string> = readonly [LeanHistogram<L>, LeanHistogram<L>];

/**
 * Flow control's series written per request and per dispatch cycle: lean families, each series
 * found once and kept by the caller (libs/telemetry/README.md, "Lean series or prom-client").
 * Each Endpoint Picker histogram is a pair, the current name and its deprecated twin.
 */
export interface FlowRequestSeries {
  readonly queueDuration: Pair<FlowQueueLabel | 'outcome'>;
  readonly enqueueDuration: Pair<'fairness_id' | 'priority' | 'outcome'>;
  readonly dispatchCycle: Pair<never>;
  /** sluice's books over all flows, in its own outcome words. */
  readonly arrivals: LeanCounter<'outcome'>;
  readonly queueExits: LeanCounter<'outcome'>;
  /** Handoffs to the router, by result (dispatched, router_unavailable, handed_back). */
  readonly handoffs: LeanCounter<'outcome'>;
}

export function createFlowRequestSeries(registry: Registry): FlowRequestSeries {
  // Metric definitions: llm-d/llm-d-router pkg/epp/metrics/llm_d_router_metrics.go and metrics.go.
  const histograms = <L extends string>(suffix: string, help: string, labelNames: readonly L[], buckets: number[]): Pair<L> => {
    const { current, legacy } = flowControlNames(suffix);
    return [
      new LeanHistogram<L>({ name: current, help: eppHelp(help), labelNames, buckets, registers: [registry] }),
      new LeanHistogram<L>({ name: legacy, help: deprecatedEppHelp(current, help), labelNames, buckets, registers: [registry] }),
    ] as const;
  };
  const counter = (name: string, help: string) => new LeanCounter({ name, help, labelNames: ['outcome'], registers: [registry] });

  return {
    queueDuration: histograms(
      'request_queue_duration_seconds',
      'Time a request spent in flow control, from its arrival to its final outcome (dispatched, rejected or evicted).',
      ['fairness_id', 'priority', 'outcome', ...FLOW_QUEUE_LABELS.slice(2)] as const,
      EPP_QUEUE_BUCKETS,
    ),
    enqueueDuration: histograms(
      'request_enqueue_duration_seconds',
      'Time to decide on an arriving request (queued, rejected, or passed on with flow control disabled).',
      ['fairness_id', 'priority', 'outcome'] as const,
      EPP_FAST_BUCKETS,
    ),
    dispatchCycle: histograms('dispatch_cycle_duration_seconds', 'Time of one dispatch cycle: pick, saturation check, release of every request it lets go.', [], EPP_FAST_BUCKETS),
    arrivals: counter('sluice_flow_arrivals_total', 'Requests that reached flow control, by what became of them on arrival (sluice’s enqueue outcomes, over all flows).'),
    queueExits: counter('sluice_flow_queue_exits_total', 'Requests that left a flow-control queue, by how (sluice’s queue-exit outcomes, over all flows).'),
    handoffs: counter('sluice_flow_dispatched_total', 'Requests the flow controller passed to the router, by handoff outcome.'),
  };
}
