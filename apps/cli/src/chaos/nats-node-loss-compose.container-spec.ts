import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerCliAvailable, freePorts, REPO_ROOT } from '@sluice/launcher';
import type { RunReportFile } from '@sluice/report';
import { ComposeProject, buildOfflineImages, eventually, findCompose, metricSum, metricValue, postCompletion, runSluice, streamCompletion } from '@sluice/testing';

/**
 * The compose deployment on a 3-node NATS cluster (docker-compose.nats-cluster.yml over the
 * offline images), and `sluice chaos --compose` running examples/chaos/nats-node-loss.yaml: a
 * steady streaming load, and the node with the most client connections killed for good
 * mid-run. Nothing may be lost or fail, every stream must arrive whole, and the gateway's books
 * must balance; afterwards the services all sit on the two nodes left and still serve.
 */
const dockerUp = await dockerCliAvailable();
const compose = dockerUp ? await findCompose() : null;
const required = process.env.CI === 'true';

const NODES = ['nats', 'nats-1', 'nats-2'] as const;
/** gateway, admission, flow-controller, router and two workers: one NATS connection each. */
const SERVICE_CONNECTIONS = 6;

interface Varz {
  readonly server_name: string;
  readonly connections: number;
  readonly routes: number;
}

describe.runIf((dockerUp && compose !== null) || required)('sluice chaos --compose: a NATS node lost', () => {
  let stack: ComposeProject | undefined;
  let gatewayUrl = '';
  let natsUrl = '';

  /** A node's /varz through its published monitoring port, or null when it does not answer. */
  async function varz(service: string): Promise<Varz | null> {
    const port = (await stack!.run(['port', service, '8222'])).stdout.trim();
    if (!port) return null;
    return fetch(`http://${port}/varz`)
      .then((res) => res.json() as Promise<Varz>)
      .catch(() => null);
  }

  beforeAll(async () => {
    if (!dockerUp) throw new Error('CI=true but no Docker engine answers: the compose chaos suite cannot run');
    if (!compose) throw new Error('CI=true but neither docker-compose nor `docker compose` is installed');
    await buildOfflineImages();
    const [gatewayPort, prometheusPort, natsPort] = await freePorts(3);
    stack = new ComposeProject({
      command: compose,
      project: `sluice-nats-loss-test-${process.pid}-${randomBytes(3).toString('hex')}`,
      files: ['docker-compose.yml', 'docker-compose.offline.yml', 'docker-compose.nats-cluster.yml'],
      cwd: REPO_ROOT,
      vars: { GATEWAY_PORT: String(gatewayPort), PROMETHEUS_PORT: String(prometheusPort), NATS_PORT: String(natsPort), SLUICE_WORKER__INSTANCES: '2' },
    });
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    natsUrl = `nats://127.0.0.1:${natsPort}`;
    await stack.runOrThrow(['up', '-d', '--no-build', '--scale', 'worker=2'], 180_000);
    await eventually(async () => (await postCompletion(gatewayUrl, { prompt: 'warm', max_tokens: 2 }).catch(() => null))?.status === 200, 60_000, 'a first 200 from the gateway');
  }, 480_000);

  afterAll(async () => {
    await stack?.down();
  }, 130_000);

  it('runs three routed nodes, with every service connected to one of them', async () => {
    let seen: (Varz | null)[] = [];
    await eventually(
      async () => {
        seen = await Promise.all(NODES.map(varz));
        return seen.every((v) => v?.routes === 2) && seen.reduce((sum, v) => sum + (v?.connections ?? 0), 0) === SERVICE_CONNECTIONS;
      },
      30_000,
      'a full mesh holding every service',
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(seen)}`);
    });
    expect(seen.map((v) => v?.server_name)).toEqual(['nats-0', 'nats-1', 'nats-2']);
  });

  it('runs nats-node-loss --short against the containers: the busiest node is killed, nothing is lost, the books balance', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sluice-nats-loss-')), 'run');
    const scenario = join(REPO_ROOT, 'examples', 'chaos', 'nats-node-loss.yaml');
    const run = await runSluice(
      ['chaos', scenario, '--short', '--compose', '--compose-project', stack!.project, '--gateway', gatewayUrl, `--nats.url=${natsUrl}`, '--out', out, '--json'],
      { timeoutMs: 170_000 },
    );
    const logs = run.code === 0 ? '' : await stack!.logs();
    expect(run.code, `${run.stdout}\n${run.stderr}\n${logs}`).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
    const chaos = report.chaos!;
    expect(chaos.target).toBe('compose');

    // The node killed held client connections (at least 2 of the 6: they spread over three).
    const [loss] = chaos.faults;
    expect(loss).toMatchObject({ action: 'stop-nats-node', error: null });
    expect(loss!.firedAtMs).not.toBeNull();
    const match = /^nats-(\d) \((\d+) of (\d+) client connections\): docker kill [0-9a-f]{12} \((nats(?:-\d)?)\), for good$/.exec(loss!.detail);
    expect(match, loss!.detail).not.toBeNull();
    const [, , held, total, service] = match!;
    expect(Number(held)).toBeGreaterThanOrEqual(2);
    expect(Number(total)).toBe(SERVICE_CONNECTIONS);

    // No request lost or failed: every one generated completed, once, every stream whole.
    expect(report.records).toHaveLength(report.workload.requests);
    expect(chaos.outcomesByReason).toEqual({ completed: report.workload.requests });
    const status = Object.fromEntries(chaos.invariants.map((i) => [i.id, i.status]));
    expect(status).toMatchObject({ 'client-outcomes': 'pass', 'gateway-books': 'pass', 'usage-tokens': 'pass', deadline: 'pass', 'failed-share': 'pass' });
    expect(chaos.passed).toBe(true);

    // The gateway's own books over its whole life: received = Σ outcomes, nothing in flight.
    await eventually(async () => (await metricValue(gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight at the gateway');
    expect(await metricSum(gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(gatewayUrl, 'sluice_requests_received_total'));

    // Lost for good: that node stays down, the services sit on the two left, and still serve.
    const survivors = NODES.filter((n) => n !== service);
    const running = (await stack!.runOrThrow(['ps', '--services', '--filter', 'status=running'])).split('\n').filter(Boolean);
    expect(running).not.toContain(service);
    expect(running).toEqual(expect.arrayContaining(survivors));
    await eventually(async () => {
      const left = await Promise.all(survivors.map(varz));
      return left.every((v) => v?.routes === 1) && left.reduce((sum, v) => sum + (v?.connections ?? 0), 0) === SERVICE_CONNECTIONS;
    }, 15_000, 'every service on the two nodes left');
    const after = await streamCompletion(gatewayUrl, { prompt: 'after the loss', max_tokens: 4 });
    expect(after.status).toBe(200);
    expect(after.pieces).toHaveLength(4);
  }, 200_000);
});
