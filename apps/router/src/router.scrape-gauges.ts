import { readFileSync } from 'node:fs';
import type { InstanceView } from '@sluice/policies';
import { Gauge, deprecatedEppHelp, eppHelp, type Registry } from '@sluice/telemetry';

/** What the router knows of the pool at scrape time. */
export interface PoolReadings {
  /** Live, non-draining instances (a pod, in the Endpoint Picker's words), with their latest load snapshot. */
  instances(): readonly Pick<InstanceView, 'instanceId' | 'inFlight' | 'queueDepth' | 'batchSize' | 'kvUtilization'>[];
}

type Instances = ReturnType<PoolReadings['instances']>;

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
 * The router's gauges computed when Prometheus scrapes, and the build info set once: prom-client's
 * `Gauge` (with `collect` for the pool), so a routing decision pays nothing for them
 * (libs/telemetry/README.md, "Lean series or prom-client"). sluice's in-flight counts, and the
 * Endpoint Picker's pool metrics (llm-d/llm-d-router `collectors/inference_pool.go`), the current
 * `llm_d_epp_*` names beside the deprecated GAIE ones, over the live instances; `pool` is their
 * `name` label (config `inferencePool`).
 */
export function createRouterScrapeGauges(registry: Registry, pool: string, readings: PoolReadings): void {
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
  const poolGauge = (name: string, help: string, read: (instances: Instances) => number) => {
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
  const stat = (pick: (i: Instances[number]) => number, which: 'mean' | 'stdDev') => (instances: Instances) => meanAndStdDev(instances.map(pick))[which];
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

  const info = buildInfo();
  new Gauge({ name: 'llm_d_epp_info', help: eppHelp('The build of the router playing the Endpoint Picker (always 1).'), labelNames: ['commit', 'build_ref'], registers: [registry] }).set(info, 1);
  // Not marked deprecated in llm-d's help either.
  new Gauge({ name: 'inference_extension_info', help: eppHelp('The build of the router playing the Endpoint Picker (always 1).'), labelNames: ['commit', 'build_ref'], registers: [registry] }).set(info, 1);
}
