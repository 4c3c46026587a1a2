import { Counter, Gauge, Histogram, type Registry } from '@sluice/telemetry';

/**
 * The chosen worker instance is the label `worker_instance`, not `instance`: Prometheus sets
 * `instance` on every scraped series (the target) and would rename ours to `exported_instance`.
 */
export interface RouterMetrics {
  readonly decisions: Counter<'policy' | 'worker_instance'>;
  readonly decisionSeconds: Histogram<'policy'>;
  /** Counterfactual regret per decision, in the policy's score unit. */
  readonly regret: Histogram<'policy'>;
}

/** The router's metrics; `sluice_router_inflight` is read from the cluster state at scrape time. */
export function createRouterMetrics(registry: Registry, inflight: () => Iterable<{ instanceId: string; inFlight: number }>): RouterMetrics {
  const gauge: Gauge<'worker_instance'> = new Gauge({
    name: 'sluice_router_inflight',
    help: 'Requests dispatched by this router and not yet done, per instance.',
    labelNames: ['worker_instance'],
    registers: [registry],
    collect() {
      gauge.reset();
      for (const i of inflight()) gauge.set({ worker_instance: i.instanceId }, i.inFlight);
    },
  });
  return {
    decisions: new Counter({
      name: 'sluice_router_decisions_total',
      help: 'Routing decisions by policy and chosen instance.',
      labelNames: ['policy', 'worker_instance'],
      registers: [registry],
    }),
    decisionSeconds: new Histogram({
      name: 'sluice_router_decision_seconds',
      help: 'Time to pick an instance, excluding the handoff.',
      labelNames: ['policy'],
      buckets: [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2],
      registers: [registry],
    }),
    regret: new Histogram({
      name: 'sluice_router_regret',
      help: 'Counterfactual regret per decision: best candidate score minus the chosen one (weighted: score in [0,1]; others: effective load).',
      labelNames: ['policy'],
      buckets: [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100],
      registers: [registry],
    }),
  };
}
