import { readFileSync } from 'node:fs';
import type { InstanceView } from '@sluice/policies';
import { EPP_FAST_BUCKETS, Gauge, LeanCounter, LeanHistogram, deprecatedEppHelp, eppHelp, type Registry } from '@sluice/telemetry';

/**
 * The chosen worker instance is the label `worker_instance`, not `instance`: Prometheus sets
 * `instance` on every scraped series (the target) and would rename ours to `exported_instance`.
 */
export interface RouterMetrics {
  readonly decisions: LeanCounter<'policy' | 'worker_instance'>;
  readonly decisionSeconds: LeanHistogram<'policy'>;
  /** Counterfactual regret per decision, in the policy's score unit. */
  readonly regret: LeanHistogram<'policy'>;
  /** The Endpoint Picker's scheduler metrics: how long the choice took, and whether one was made (`instanceId` the chosen, or none). */
  scheduled(seconds: number, model: string, instanceId: string | undefined): void;
}

/** What the router knows of the pool at scrape time. */
export interface PoolReadings {
  /** Live, non-draining instances (a pod, in the Endpoint Picker's words), with their latest load snapshot. */
  instances(): readonly Pick<InstanceView, 'instanceId' | 'inFlight' | 'queueDepth' | 'batchSize' | 'kvUtilization'>[];
}

/** Mean and population standard deviation; 0 and 0 for no values (an empty pool reads 0, not NaN). */
export function meanAndStdDev(values: readonly number[]): { mean: number; stdDev: number } {
  if (values.length === 0) return { mean: 0, stdDev: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, stdDev: Math.sqrt(variance) };
}

/** The build, for `*_info`: the commit from `SLUICE_GIT_COMMIT` when the build sets it, the router package's version. */
function buildInfo(): { commit: string; build_ref: string } {
  let version = 'unknown';
  try {
    // src/ and dist/ both sit beside the package's package.json.
    version = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    // run from elsewhere: unknown
  }
  return { commit: process.env.SLUICE_GIT_COMMIT ?? 'unknown', build_ref: version };
}

/**
 * The router's metrics: sluice's own (decisions, regret, in-flight), and the Endpoint Picker's
 * scheduler and pool metrics, the current `llm_d_epp_*` names beside the deprecated GAIE ones
 * (llm-d/llm-d-router `pkg/epp/metrics/llm_d_router_metrics.go`, `metrics.go` and
 * `collectors/inference_pool.go`). Pool metrics are computed at scrape time over the live
 * instances; `pool` is their `name` label (config `inferencePool`).
 */
export function createRouterMetrics(registry: Registry, pool: string, readings: PoolReadings): RouterMetrics {
  const inflight: Gauge<'worker_instance'> = new Gauge({
    name: 'sluice_router_inflight',
    help: 'Requests dispatched by this router and not yet done, per instance.',
    labelNames: ['worker_instance'],
    registers: [registry],
    collect() {
      inflight.reset();
      for (const i of readings.instances()) inflight.set({ worker_instance: i.instanceId }, i.inFlight);
    },
  });

  // Pool gauges: one value per pool, read from the instances' snapshots.
  const poolGauge = (name: string, help: string, read: (instances: ReturnType<PoolReadings['instances']>) => number) => {
    const gauge: Gauge<'name'> = new Gauge({
      name,
      help,
      labelNames: ['name'],
      registers: [registry],
      collect() {
        gauge.set({ name: pool }, read(readings.instances()));
      },
    });
  };
  const stat = (pick: (i: ReturnType<PoolReadings['instances']>[number]) => number, which: 'mean' | 'stdDev') => (instances: ReturnType<PoolReadings['instances']>) =>
    meanAndStdDev(instances.map(pick))[which];
  const kv = (i: { kvUtilization: number }) => i.kvUtilization;
  const queue = (i: { queueDepth: number }) => i.queueDepth;
  const running = (i: { batchSize: number }) => i.batchSize;
  const averages = [
    ['average_kv_cache_utilization', 'The mean KV-cache utilization (0 to 1) over the pool’s ready instances.', kv],
    ['average_queue_size', 'The mean number of requests waiting in the model servers’ queues over the pool’s ready instances.', queue],
    ['average_running_requests', 'The mean number of requests running on the pool’s ready instances.', running],
  ] as const;
  for (const [suffix, help, pick] of averages) {
    poolGauge(`llm_d_epp_${suffix}`, eppHelp(help), stat(pick, 'mean'));
    poolGauge(`inference_pool_${suffix}`, deprecatedEppHelp(`llm_d_epp_${suffix}`, help), stat(pick, 'mean'));
    const spread = suffix.replace('average_', '');
    poolGauge(`llm_d_epp_std_dev_${spread}`, eppHelp(`The standard deviation of ${spread.replaceAll('_', ' ')} over the pool’s ready instances.`), stat(pick, 'stdDev'));
  }
  const readyHelp = 'Instances of the pool that are live (heard from within the heartbeat timeout) and not draining.';
  poolGauge('llm_d_epp_ready_endpoints', eppHelp(readyHelp), (instances) => instances.length);
  poolGauge('inference_pool_ready_pods', deprecatedEppHelp('llm_d_epp_ready_endpoints', readyHelp), (instances) => instances.length);
  // One series per ready instance, rebuilt at each scrape: an instance gone is gone from the page.
  const perInstance = (name: string, label: string, help: string) => {
    const gauge: Gauge = new Gauge({
      name,
      help,
      labelNames: ['name', label],
      registers: [registry],
      collect() {
        gauge.reset();
        for (const i of readings.instances()) gauge.set({ name: pool, [label]: i.instanceId }, i.queueDepth);
      },
    });
  };
  const perHelp = 'Requests waiting in each ready instance’s queue, as its latest load snapshot says.';
  perInstance('llm_d_epp_per_endpoint_queue_size', 'model_server_endpoint', eppHelp(perHelp));
  perInstance('inference_pool_per_pod_queue_size', 'model_server_pod', deprecatedEppHelp('llm_d_epp_per_endpoint_queue_size', perHelp));

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
  const attemptSeries = new Map<string, { inc(): void }>();
  const attemptOf = (model: string, instanceId: string | undefined) => {
    const key = `${model}\u0000${instanceId ?? ''}`;
    let series = attemptSeries.get(key);
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
      attemptSeries.set(key, series);
    }
    return series;
  };

  const info = buildInfo();
  new Gauge({ name: 'llm_d_epp_info', help: eppHelp('The build of the router playing the Endpoint Picker (always 1).'), labelNames: ['commit', 'build_ref'], registers: [registry] }).set(info, 1);
  // Not marked deprecated in llm-d's help either.
  new Gauge({ name: 'inference_extension_info', help: eppHelp('The build of the router playing the Endpoint Picker (always 1).'), labelNames: ['commit', 'build_ref'], registers: [registry] }).set(info, 1);

  return {
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
