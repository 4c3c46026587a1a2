import { EPP_FAST_BUCKETS, LeanCounter, LeanHistogram, deprecatedEppHelp, eppHelp, type Registry } from '@sluice/telemetry';

/**
 * The router's series written per routing decision: lean families, each series found once
 * (libs/telemetry/README.md, "Lean series or prom-client"). The chosen worker instance is the
 * label `worker_instance`, not `instance`: Prometheus sets `instance` on every scraped series (the
 * target) and would rename ours to `exported_instance`.
 */
export interface RouterRequestSeries {
  readonly decisions: LeanCounter<'policy' | 'worker_instance'>;
  readonly decisionSeconds: LeanHistogram<'policy'>;
  /** Counterfactual regret per decision, in the policy's score unit. */
  readonly regret: LeanHistogram<'policy'>;
  /**
   * Dynamo's `dynamo_tasks_rejected_total{model}`: a request refused because every instance of its
   * model was busy (the admission service counts its own under the same name; a sum adds both).
   */
  readonly tasksRejected: LeanCounter<'model'>;
  /** Decision-trace lines not written (`router.decisionTrace`): the disk behind (`backlog`), the file at its size limit, or a failed write. */
  readonly traceLinesDropped: LeanCounter<'reason'>;
  /** The Endpoint Picker's scheduler metrics: how long the choice took, and whether one was made (`instanceId` the chosen, or none). */
  scheduled(seconds: number, model: string, instanceId: string | undefined): void;
}

/**
 * sluice's own decision series, and the Endpoint Picker's scheduler metrics, the current
 * `llm_d_epp_*` names beside the deprecated GAIE ones (llm-d/llm-d-router
 * `pkg/epp/metrics/llm_d_router_metrics.go` and `metrics.go`).
 */
export function createRouterRequestSeries(registry: Registry): RouterRequestSeries {
  // Scheduler: the routing decision is the EPP's scheduling cycle.
  const e2eHelp = 'Time to pick an instance for a request (the routing decision), in seconds.';
  const e2e = [
    new LeanHistogram({ name: 'llm_d_epp_scheduler_e2e_duration_seconds', help: eppHelp(e2eHelp), buckets: EPP_FAST_BUCKETS, registers: [registry] }),
    new LeanHistogram({ name: 'inference_extension_scheduler_e2e_duration_seconds', help: deprecatedEppHelp('llm_d_epp_scheduler_e2e_duration_seconds', e2eHelp), buckets: EPP_FAST_BUCKETS, registers: [registry] }),
  ].map((h) => h.labels());
  const attemptsHelp = 'Routing attempts by status (success: an instance was picked; failure: none could be), with the picked instance.';
  const attempts = new LeanCounter({
    name: 'llm_d_epp_scheduler_attempts_total',
    help: eppHelp(attemptsHelp),
    labelNames: ['status', 'target_model_name', 'endpoint_name', 'namespace', 'port'],
    registers: [registry],
  });
  const legacyAttempts = new LeanCounter({
    name: 'inference_extension_scheduler_attempts_total',
    help: deprecatedEppHelp('llm_d_epp_scheduler_attempts_total', attemptsHelp),
    labelNames: ['status', 'target_model_name', 'pod_name', 'namespace', 'port'],
    registers: [registry],
  });
  // Bound per (model, instance): an instance is reached over the bus, so it has no namespace or port.
  // Two levels of maps, not one keyed by a joined string: the joined key had to be built and hashed
  // anew on every decision (`attemptOf` was about 4% of the router's busy time under load).
  const attemptSeries = new Map<string, Map<string, { inc(): void }>>();
  const attemptOf = (model: string, instanceId: string | undefined) => {
    let ofModel = attemptSeries.get(model);
    if (ofModel === undefined) attemptSeries.set(model, (ofModel = new Map<string, { inc(): void }>()));
    const key = instanceId ?? ''; // no instance id is empty (a subject token): '' is the failure series
    let series = ofModel.get(key);
    if (series === undefined) {
      const status = instanceId === undefined ? 'failure' : 'success';
      const endpoint = instanceId ?? '';
      const current = attempts.labels({ status, target_model_name: model, endpoint_name: endpoint, namespace: '', port: '' });
      const legacy = legacyAttempts.labels({ status, target_model_name: model, pod_name: endpoint, namespace: '', port: '' });
      series = {
        inc() {
          current.inc();
          legacy.inc();
        },
      };
      ofModel.set(key, series);
    }
    return series;
  };

  return {
    tasksRejected: new LeanCounter({
      name: 'dynamo_tasks_rejected_total',
      help: 'Requests rejected because every worker was busy (busy thresholds), as Dynamo counts them.',
      labelNames: ['model'],
      registers: [registry],
    }),
    traceLinesDropped: new LeanCounter({
      name: 'sluice_router_decision_trace_dropped_total',
      help: 'Decision-trace lines not written: the disk behind (backlog), the file at its size limit (file_full), or a failed write (write_error).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    decisions: new LeanCounter({
      name: 'sluice_router_decisions_total',
      help: 'Routing decisions by policy and chosen instance.',
      labelNames: ['policy', 'worker_instance'],
      registers: [registry],
    }),
    decisionSeconds: new LeanHistogram({
      name: 'sluice_router_decision_seconds',
      help: 'Time to pick an instance, excluding the handoff.',
      labelNames: ['policy'],
      buckets: [1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 1e-2],
      registers: [registry],
    }),
    regret: new LeanHistogram({
      name: 'sluice_router_regret',
      help: 'Counterfactual regret per decision: best candidate score minus the chosen one (weighted: score in [0,1]; others: effective load).',
      labelNames: ['policy'],
      buckets: [0, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100],
      registers: [registry],
    }),
    scheduled(seconds, model, instanceId) {
      for (const h of e2e) h.observe(seconds);
      attemptOf(model, instanceId).inc();
    },
  };
}
