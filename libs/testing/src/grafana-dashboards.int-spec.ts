import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster, type ServiceName } from '@sluice/launcher';
import { postCompletion } from './completions.js';
import { dashboardQueries, loadDashboards } from './grafana-dashboards.js';
import { readMetricsDoc } from './metrics-doc.js';
import { parseExposition, seriesNames, type MetricFamily } from './prometheus-exposition.js';
import { metricSum } from './probes.js';
import { metricNamesIn, metricNamesInVariableQuery } from './promql-metric-names.js';
import { loadRuleFiles } from './prometheus-rules.js';

/**
 * The dashboards and docs/metrics.md against what a live cluster really exposes: every service
 * started as a process on a real nats-server, requests of every SLO class sent through the
 * gateway, then every service's /metrics scraped. Family names and types come from the `# TYPE`
 * lines (prom-client prints them before a metric's first sample), labels from the samples.
 */

/** Each service's families, by the service name its docs/metrics.md section has. */
const exposed = new Map<ServiceName, Map<string, MetricFamily>>();
let cluster: LocalCluster;

/** Labels the registry puts on every series (libs/telemetry createMetricsRegistry). */
const DEFAULT_LABELS = ['service', 'instance_id'];

const SLO_CLASSES = ['critical', 'standard', 'sheddable'];
let token = 1;
const tokens = (n: number) => Array.from({ length: n }, () => token++ % 128_000);

async function complete(sloClass: string, promptTokens: number, maxTokens: number): Promise<void> {
  const res = await postCompletion(cluster.gatewayUrl, { prompt: tokens(promptTokens), max_tokens: maxTokens }, { headers: { 'x-sluice-slo-class': sloClass } });
  expect(res.status, await res.text()).toBe(200);
}

beforeAll(async () => {
  cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    // Weighted routing, so the router's scores and regret have samples; a KV cache of 8 blocks,
    // so requests sharing an instance run out of blocks and preempt (vllm:num_preemptions_total).
    // The autoscaler too (it changes nothing here: its scale-down window outlasts the test), so its page is checked against the doc.
    configArgs: [...FREE_PORT_ARGS, '--router.policy=weighted', '--worker.instances=2', '--worker.kvBlocks=8', '--worker.timeScale=10', '--autoscaler.enabled=true'],
    parallel: true,
  });
  // 48-token prompts (3 blocks) growing to 88 tokens (6 blocks): two at once on an instance need 12.
  await Promise.all(SLO_CLASSES.flatMap((c) => [complete(c, 48, 40), complete(c, 48, 40)]));
  for (const service of cluster.services) {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    exposed.set(service.name, parseExposition(text));
  }
});

afterAll(async () => {
  await cluster?.stop();
});

const allFamilies = () => [...exposed.values()].flatMap((families) => [...families.values()]);

describe('grafana dashboards against a live cluster', () => {
  it('name only metrics that the running services expose, or that Prometheus makes from its rules', () => {
    // ALERTS and the recorded series come from infra/prometheus/rules, whose own spec checks
    // that they read only what the services expose (prometheus-rules.spec.ts).
    const recorded = loadRuleFiles().flatMap(({ groups }) => groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));
    const series = new Set([...allFamilies().flatMap(seriesNames), 'ALERTS', ...recorded]);
    const queries = loadDashboards().flatMap(dashboardQueries);
    expect(queries.length).toBeGreaterThan(20);
    const unknown = queries.flatMap(({ where, expr, variable }) =>
      (variable ? metricNamesInVariableQuery(expr) : metricNamesIn(expr)).filter((name) => !series.has(name)).map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('have data for the latency panels of every SLO class', async () => {
    const gateway = cluster.services.find((s) => s.name === 'gateway')!.url;
    for (const slo of SLO_CLASSES) {
      // Two requests per class; 40 tokens each give one TTFT and 39 inter-token samples.
      expect(await metricSum(gateway, 'sluice_time_to_first_token_seconds_count', `slo_class="${slo}"`), slo).toBe(2);
      expect(await metricSum(gateway, 'sluice_inter_token_latency_seconds_count', `slo_class="${slo}"`), slo).toBe(2 * 39);
    }
  });
});

describe('docs/metrics.md against a live cluster', () => {
  const doc = readMetricsDoc();
  const inSection = (section: string, name: string) =>
    doc.find((row) => (row.section === section || row.section === 'all') && (row.prefix ? name.startsWith(row.name.slice(0, -1)) : row.name === name));

  it('documents every family each service exposes, in that service\'s section, with its type', () => {
    const missing = [...exposed].flatMap(([service, families]) =>
      [...families.values()].filter((f) => inSection(service, f.name) === undefined).map((f) => `${service}: ${f.name} (${f.type})`),
    );
    expect(missing).toEqual([]);
    const wrongType = [...exposed].flatMap(([service, families]) =>
      [...families.values()].flatMap((f) => {
        const row = inSection(service, f.name)!;
        return row.prefix || row.type === f.type ? [] : [`${service}: ${f.name} is a ${f.type}, documented as ${row.type}`];
      }),
    );
    expect(wrongType).toEqual([]);
  });

  it('lists the labels the samples carry, for every documented family that has samples', () => {
    let checked = 0;
    const wrong = [...exposed].flatMap(([service, families]) =>
      [...families.values()].flatMap((f) => {
        const row = inSection(service, f.name);
        if (!row || row.prefix || f.samples === 0) return [];
        checked++;
        const documented = [...row.labels, ...DEFAULT_LABELS].sort();
        const seen = [...f.labels].sort();
        return documented.join() === seen.join() ? [] : [`${service}: ${f.name} has labels [${seen.join(', ')}], documented [${documented.join(', ')}]`];
      }),
    );
    expect(wrong).toEqual([]);
    // Most families have samples after the load above; the rest are counters of rarer events.
    expect(checked).toBeGreaterThanOrEqual(30);
  });

  it('documents nothing that its service does not expose', () => {
    // A row of the "all services" section must be exposed by every service.
    const isExposed = (row: (typeof doc)[number]) =>
      row.section === 'all' ? [...exposed.values()].every((families) => families.has(row.name)) : exposed.get(row.section as ServiceName)?.has(row.name) === true;
    // The disaggregated-only families are checked on a disaggregated cluster (apps/worker disaggregated.int-spec.ts).
    const stale = doc
      .filter((row) => !row.prefix && !row.disaggregatedOnly)
      .filter((row) => !isExposed(row))
      .map((row) => `${row.section}: ${row.name}`);
    expect(stale).toEqual([]);
  });

  it('uses no label that Prometheus reserves for the scrape target', () => {
    const clashing = allFamilies().filter((f) => f.labels.has('instance') || f.labels.has('job')).map((f) => f.name);
    expect(clashing).toEqual([]);
  });
});
