import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerCliAvailable, freePorts, REPO_ROOT } from '@sluice/launcher';
import { ComposeProject, composeLeftovers, findCompose } from './compose.js';
import { buildOfflineImages } from './offline-images.js';
import { eventually } from './probes.js';
import { promQuery, promScalar } from './prometheus-api.js';
import { loadRuleFiles } from './prometheus-rules.js';

/**
 * docker-compose.yml as a user runs it on a machine without registries: the offline stand-in
 * images, the offline override (no Jaeger, no Grafana), two worker replicas. Requests go through
 * the published gateway; the real Prometheus (Debian's binary in the stand-in image) must have
 * scraped every service and replica, hold the request counter and the TTFT histograms, and
 * evaluate the alert rules of infra/prometheus/rules; `down -v` must leave nothing behind. In
 * CI a missing Docker engine or Compose fails this suite.
 */
const dockerUp = await dockerCliAvailable();
const compose = dockerUp ? await findCompose() : null;
const required = process.env.CI === 'true';

const SERVICES = ['gateway', 'admission', 'flow-controller', 'router', 'worker'] as const;
const WORKER_REPLICAS = 2;

describe.runIf((dockerUp && compose !== null) || required)('docker compose: the core stack on the offline images', () => {
  let stack: ComposeProject | undefined;
  let gatewayUrl = '';
  let prometheusUrl = '';
  let completed = 0;

  /** Runs a check; on failure, appends the containers' logs to the error. */
  async function withLogs<T>(what: () => Promise<T>): Promise<T> {
    try {
      return await what();
    } catch (error) {
      const logs = stack ? await stack.logs() : '';
      throw new Error(`${(error as Error).message}\n--- compose logs ---\n${logs}`, { cause: error });
    }
  }

  function complete(body: Record<string, unknown>): Promise<Response> {
    return fetch(`${gatewayUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'qwen3-14b', max_tokens: 8, ...body }),
    });
  }

  beforeAll(async () => {
    if (!dockerUp) throw new Error('CI=true but no Docker engine answers: the compose suite cannot run');
    if (!compose) throw new Error('CI=true but neither docker-compose nor `docker compose` is installed');
    await buildOfflineImages();
    const [gatewayPort, prometheusPort, natsPort] = await freePorts(3);
    stack = new ComposeProject({
      command: compose,
      project: `sluice-compose-test-${process.pid}-${randomBytes(3).toString('hex')}`,
      files: ['docker-compose.yml', 'docker-compose.offline.yml'],
      cwd: REPO_ROOT,
      vars: { GATEWAY_PORT: String(gatewayPort), PROMETHEUS_PORT: String(prometheusPort), NATS_PORT: String(natsPort) },
    });
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    prometheusUrl = `http://127.0.0.1:${prometheusPort}`;
    // The gateway waits for the other services to be healthy, so `up` returns with a ready pipeline.
    await withLogs(() => stack!.runOrThrow(['up', '-d', '--no-build', '--scale', `worker=${WORKER_REPLICAS}`], 180_000));
  }, 480_000);

  afterAll(async () => {
    await stack?.down(); // a no-op once the last test has brought it down
  }, 130_000);

  it('serves OpenAI completions through the published gateway', async () => {
    await withLogs(async () => {
      // Workers announce themselves on the bus; the first request may come before the router knows them.
      await eventually(async () => (await complete({ prompt: 'compose' }).catch(() => null))?.status === 200, 60_000, 'a first 200 from the gateway');
      completed++;
      for (const prompt of ['one', 'two', 'three']) {
        const res = await complete({ prompt });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { choices: { text: string }[]; usage: { completion_tokens: number } };
        expect(body.usage.completion_tokens).toBe(8);
        expect(body.choices[0]?.text.length).toBeGreaterThan(0);
        completed++;
      }
      const streamed = await complete({ prompt: 'streamed', stream: true });
      expect(streamed.status).toBe(200);
      expect((await streamed.text()).trimEnd().endsWith('data: [DONE]')).toBe(true);
      completed++;
    });
  });

  it('Prometheus scrapes every service and each worker replica', async () => {
    let targets: Record<string, number> = {};
    await withLogs(() =>
      eventually(
        async () => {
          const up = await promQuery(prometheusUrl, 'up == 1').catch(() => []);
          targets = {};
          for (const s of up) targets[s.labels.job ?? ''] = (targets[s.labels.job ?? ''] ?? 0) + 1;
          return SERVICES.every((job) => (targets[job] ?? 0) >= (job === 'worker' ? WORKER_REPLICAS : 1));
        },
        45_000,
        'every target up',
      ).catch((error: Error) => {
        throw new Error(`${error.message}; targets up by job: ${JSON.stringify(targets)}`);
      }),
    );
    expect(targets.worker).toBe(WORKER_REPLICAS);
  });

  it("Prometheus holds the gateway's request count and the services' TTFT histograms", async () => {
    const counted = { requests: 0, gatewayTtft: 0, workerTtft: 0 };
    await withLogs(() =>
      eventually(
        async () => {
          counted.requests = await promScalar(prometheusUrl, 'sum(sluice_requests_total{outcome="completed"})');
          counted.gatewayTtft = await promScalar(prometheusUrl, 'sum(sluice_time_to_first_token_seconds_count)');
          counted.workerTtft = await promScalar(prometheusUrl, 'sum(vllm:time_to_first_token_seconds_count)');
          return counted.requests >= completed && counted.gatewayTtft >= completed && counted.workerTtft >= completed;
        },
        30_000,
        `${completed} completed requests in Prometheus`,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; found ${JSON.stringify(counted)}`);
      }),
    );
    // The histogram is whole: cumulative buckets up to +Inf, which counts every observation.
    const buckets = await promQuery(prometheusUrl, 'sum by (le) (sluice_time_to_first_token_seconds_bucket)');
    expect(buckets.length).toBeGreaterThan(1);
    expect(buckets.find((b) => b.labels.le === '+Inf')?.value).toBe(counted.gatewayTtft);
    // Every series comes from a sluice service and says which one.
    const sources = await promQuery(prometheusUrl, 'count by (job, service) (sluice_requests_total)');
    expect(sources.map((s) => [s.labels.job, s.labels.service])).toEqual([['gateway', 'sluice-gateway']]);
  });

  it('Prometheus evaluates every rule of infra/prometheus/rules, without error', async () => {
    const expected = loadRuleFiles().flatMap(({ groups }) => groups.map((g) => g.name)).sort();
    let groups: { name: string; rules: { health: string }[] }[] = [];
    await withLogs(() =>
      eventually(
        async () => {
          const body = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as { data: { groups: typeof groups } };
          groups = body.data.groups;
          return groups.length === expected.length && groups.every((g) => g.rules.every((r) => r.health === 'ok'));
        },
        30_000,
        'every rule group loaded and evaluated',
      ).catch((error: Error) => {
        throw new Error(`${error.message}; found ${JSON.stringify(groups)}`);
      }),
    );
    expect(groups.map((g) => g.name).sort()).toEqual(expected);
  });

  it('down -v leaves no container, network or volume of the project', async () => {
    const project = stack!.project;
    expect(await composeLeftovers(project)).not.toEqual([]); // the check can see the project at all
    const down = await stack!.down();
    expect(down.code, down.stderr).toBe(0);
    expect(await composeLeftovers(project)).toEqual([]);
  });
});
