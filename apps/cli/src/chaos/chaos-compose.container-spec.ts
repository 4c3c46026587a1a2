import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerCliAvailable, freePorts, REPO_ROOT } from '@sluice/launcher';
import type { RunReportFile } from '@sluice/report';
import { ComposeProject, buildOfflineImages, eventually, findCompose, metricSum, metricValue, postCompletion, runSluice, streamCompletion } from '@sluice/testing';

/**
 * Shipped chaos scenarios against the compose deployment (containers): the offline images, two
 * worker replicas, on a 3-node NATS cluster (docker-compose.nats-cluster.yml). One stack serves
 * both scenarios, one after the other, as an operator's would; starting and stopping a stack is
 * most of what each would cost on its own.
 * - `worker-crash-mid-stream`: `sluice chaos --compose` kills the second worker's container
 *   mid-stream. The requests it held must migrate and finish; the engine's own restart policy
 *   does not restart a container killed by hand, so the target starts it again, as the local
 *   supervisor would.
 * - `nats-node-loss`: a steady streaming load, and the node with the most client connections
 *   killed for good mid-run. Nothing may be lost or fail, every stream must arrive whole, and the
 *   gateway's books must balance over its whole life (the worker crash before included);
 *   afterwards the services all sit on the two nodes left and still serve.
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

describe.runIf((dockerUp && compose !== null) || required)('sluice chaos --compose, on a 3-node NATS cluster', () => {
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

  /** `sluice chaos <scenario> --short --compose` against the stack: its report, once it exited 0 (the stack's logs otherwise). */
  async function chaosRun(scenario: string): Promise<RunReportFile> {
    const out = join(mkdtempSync(join(tmpdir(), `sluice-${scenario}-`)), 'run');
    const run = await runSluice(
      ['chaos', join(REPO_ROOT, 'examples', 'chaos', `${scenario}.yaml`), '--short', '--compose', '--compose-project', stack!.project, '--gateway', gatewayUrl, `--nats.url=${natsUrl}`, '--out', out, '--json'],
      { timeoutMs: 170_000 },
    );
    const logs = run.code === 0 ? '' : await stack!.logs();
    expect(run.code, `${run.stdout}\n${run.stderr}\n${logs}`).toBe(0);
    return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
  }

  beforeAll(async () => {
    if (!dockerUp) throw new Error('CI=true but no Docker engine answers: the compose chaos suite cannot run');
    if (!compose) throw new Error('CI=true but neither docker-compose nor `docker compose` is installed');
    await buildOfflineImages();
    const [gatewayPort, prometheusPort, natsPort] = await freePorts(3);
    stack = new ComposeProject({
      command: compose,
      project: `sluice-chaos-test-${process.pid}-${randomBytes(3).toString('hex')}`,
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

  /** Every NATS node routed to the others, and the services' connections all held by `nodes`. */
  async function meshHolding(nodes: readonly string[], what: string): Promise<(Varz | null)[]> {
    let seen: (Varz | null)[] = [];
    await eventually(
      async () => {
        seen = await Promise.all(nodes.map(varz));
        return seen.every((v) => v?.routes === nodes.length - 1) && seen.reduce((sum, v) => sum + (v?.connections ?? 0), 0) === SERVICE_CONNECTIONS;
      },
      30_000,
      what,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(seen)}`);
    });
    return seen;
  }

  it('runs three routed nodes, with every service connected to one of them', async () => {
    const seen = await meshHolding(NODES, 'a full mesh holding every service');
    expect(seen.map((v) => v?.server_name)).toEqual(['nats-0', 'nats-1', 'nats-2']);
  });

  it('runs worker-crash-mid-stream --short: the kill happens, nothing is lost, every invariant holds', async () => {
    const chaos = (await chaosRun('worker-crash-mid-stream')).chaos!;
    expect(chaos.target).toBe('compose');
    const [kill] = chaos.faults;
    expect(kill).toMatchObject({ action: 'kill', target: 'worker-1', error: null });
    expect(kill!.firedAtMs).not.toBeNull();
    for (const invariant of chaos.invariants) expect(invariant.status, `${invariant.id}: ${invariant.details.join('; ')}`).not.toBe('fail');
    expect(chaos.passed).toBe(true);
    // The killed container runs again, and its new process is on the bus.
    await eventually(async () => (await stack!.run(['ps', '-q', 'worker'])).stdout.trim().split('\n').filter(Boolean).length === 2, 30_000, 'two worker containers running');
    await meshHolding(NODES, 'every service connected again, the restarted worker included');
  }, 200_000);

  it('runs nats-node-loss --short: the busiest node is killed, nothing is lost, the books balance', async () => {
    const report = await chaosRun('nats-node-loss');
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

    // The gateway's own books over its whole life, both scenarios: received = Σ outcomes, nothing in flight.
    await eventually(async () => (await metricValue(gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight at the gateway');
    expect(await metricSum(gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(gatewayUrl, 'sluice_requests_received_total'));

    // Lost for good: that node stays down, the services sit on the two left, and still serve.
    const survivors = NODES.filter((n) => n !== service);
    const running = (await stack!.runOrThrow(['ps', '--services', '--filter', 'status=running'])).split('\n').filter(Boolean);
    expect(running).not.toContain(service);
    expect(running).toEqual(expect.arrayContaining(survivors));
    await meshHolding(survivors, 'every service on the two nodes left');
    const after = await streamCompletion(gatewayUrl, { prompt: 'after the loss', max_tokens: 4 });
    expect(after.status).toBe(200);
    expect(after.pieces).toHaveLength(4);
  }, 200_000);
});
