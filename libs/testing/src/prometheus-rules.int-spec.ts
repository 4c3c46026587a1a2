import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, type LocalCluster } from '@sluice/launcher';
import { postCompletion } from './completions.js';
import { eventually } from './probes.js';
import { promQuery } from './prometheus-api.js';
import { startScrapedCluster, type PrometheusProcess } from './prometheus-process.js';
import { loadRuleFiles, RULES_DIR } from './prometheus-rules.js';

/**
 * infra/prometheus/rules on a real Prometheus scraping a live cluster, one job per service as in
 * compose: every rule evaluates without error on the real series (label sets, joins), the
 * recorded series exist with the values an idle, healthy cluster gives, and the bus alert goes
 * pending while nats-server is held down. That each alert fires at its threshold is
 * prometheus-rules.spec.ts's (promtool, synthetic series).
 */
let cluster: LocalCluster;
let prometheus: PrometheusProcess;
const SLO_CLASSES = ['critical', 'standard'];

interface RuleState {
  readonly name: string;
  readonly health: string;
  readonly lastError?: string;
}

async function ruleStates(): Promise<RuleState[]> {
  const body = (await (await fetch(`${prometheus.url}/api/v1/rules`)).json()) as { data: { groups: { rules: RuleState[] }[] } };
  return body.data.groups.flatMap((g) => g.rules);
}

const alerts = async (name: string, state: string) => promQuery(prometheus.url, `ALERTS{alertname="${name}", alertstate="${state}"}`);

beforeAll(async () => {
  // Prometheus starts with the cluster, its targets picked first.
  ({ cluster, prometheus } = await startScrapedCluster({ rootDir: REPO_ROOT, configArgs: ['--worker.instances=2', '--worker.timeScale=10'], parallel: true }, 0.5, [join(RULES_DIR, '*.rules.yml')]));
  // A histogram series appears with its first request, which rate() cannot see (no earlier
  // sample): a second round once Prometheus holds the series gives the ratios an increase.
  await completeEachClass();
  await eventually(async () => (await promQuery(prometheus.url, 'sluice_time_to_first_token_seconds_count')).length === SLO_CLASSES.length, 10_000, 'the TTFT series scraped');
  await completeEachClass();
});

async function completeEachClass(): Promise<void> {
  for (const sloClass of SLO_CLASSES) {
    const res = await postCompletion(cluster.gatewayUrl, { prompt: 'the rules, live', max_tokens: 4 }, { headers: { 'x-sluice-slo-class': sloClass } });
    expect(res.status, await res.text()).toBe(200);
  }
}

afterAll(async () => {
  await prometheus?.stop();
  await cluster?.stop();
});

describe('the alert rules on a real Prometheus scraping a live cluster', () => {
  it('evaluate every rule without error', async () => {
    const expected = loadRuleFiles().flatMap(({ groups }) => groups.flatMap((g) => g.rules.map((r) => r.alert ?? r.record!)));
    await eventually(async () => {
      const states = await ruleStates();
      return states.length === expected.length && states.every((r) => r.health === 'ok');
    }, 20_000, 'every rule evaluated');
    const states = await ruleStates();
    expect(states.map((r) => r.name).sort()).toEqual([...expected].sort());
    expect(states.filter((r) => r.health !== 'ok' || r.lastError)).toEqual([]);
  });

  it('record the books at 0 for the gateway, with a scrape slack, and a TTFT error ratio per SLO class sent', async () => {
    await eventually(async () => (await promQuery(prometheus.url, 'sluice:requests_unaccounted:scrape_slack')).length === 1, 20_000, 'the scrape slack recorded');
    const books = await promQuery(prometheus.url, 'sluice:requests_unaccounted');
    expect(books.map((s) => [s.labels.job, s.value])).toEqual([['gateway', 0]]);
    const ratioOf = async () => promQuery(prometheus.url, 'model_slo_class:sluice_ttft_slo_errors:ratio_rate5m');
    await eventually(async () => (await ratioOf()).filter((s) => s.value >= 0 && s.value <= 1).length === SLO_CLASSES.length, 10_000, 'a TTFT error ratio per class');
    expect((await ratioOf()).map((s) => s.labels.slo_class).sort()).toEqual(SLO_CLASSES);
    // Recorded at the first evaluation after the flow controller's first scrape, which need not
    // have come yet (Prometheus starts with the cluster and scrapes each service at its own offset).
    const saturatedOf = async () => promQuery(prometheus.url, 'inference_pool:llm_d_epp_flow_control_pool_saturation:saturated');
    await eventually(async () => (await saturatedOf()).length > 0, 10_000, 'the pool saturation recorded');
    const saturated = await saturatedOf();
    expect(saturated.map((s) => [s.labels.inference_pool, s.value])).toEqual([['sluice', 0]]);
  });

  it('hold SluiceBusDisconnected pending for every service while nats-server is down, and drop it once it is back', async () => {
    expect(await alerts('SluiceBusDisconnected', 'pending')).toEqual([]);
    const processes = cluster.services.length;
    // Down long enough for every process's scrape and a rule evaluation after it (0.5 s each), with room to spare.
    const back = cluster.restartNats(4_000);
    await eventually(async () => (await alerts('SluiceBusDisconnected', 'pending')).length === processes, 3_500, `SluiceBusDisconnected pending for all ${processes} processes`);
    const jobs = (await alerts('SluiceBusDisconnected', 'pending')).map((s) => s.labels.job).sort();
    expect(jobs).toEqual(cluster.services.map((s) => s.name).sort());
    await back;
    await eventually(async () => (await alerts('SluiceBusDisconnected', 'pending')).length === 0, 10_000, 'SluiceBusDisconnected cleared');
    expect(await alerts('SluiceBusDisconnected', 'firing')).toEqual([]);
  });
});
