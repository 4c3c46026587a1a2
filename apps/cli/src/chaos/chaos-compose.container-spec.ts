import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerCliAvailable, freePorts, REPO_ROOT } from '@sluice/launcher';
import type { RunReportFile } from '@sluice/report';
import { ComposeProject, buildOfflineImages, eventually, findCompose, postCompletion, runSluice } from '@sluice/testing';

/**
 * A shipped chaos scenario against the compose deployment (containers): the offline images, two
 * worker replicas, and `sluice chaos --compose` killing the second worker's container mid-stream.
 * The requests it held must migrate and finish; the engine's own restart policy does not restart
 * a container killed by hand, so the target starts it again, as the local supervisor would.
 */
const dockerUp = await dockerCliAvailable();
const compose = dockerUp ? await findCompose() : null;
const required = process.env.CI === 'true';

describe.runIf((dockerUp && compose !== null) || required)('sluice chaos --compose', () => {
  let stack: ComposeProject | undefined;
  let gatewayUrl = '';
  let natsUrl = '';

  beforeAll(async () => {
    if (!dockerUp) throw new Error('CI=true but no Docker engine answers: the compose chaos suite cannot run');
    if (!compose) throw new Error('CI=true but neither docker-compose nor `docker compose` is installed');
    await buildOfflineImages();
    const [gatewayPort, prometheusPort, natsPort] = await freePorts(3);
    stack = new ComposeProject({
      command: compose,
      project: `sluice-chaos-test-${process.pid}-${randomBytes(3).toString('hex')}`,
      files: ['docker-compose.yml', 'docker-compose.offline.yml'],
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

  it('runs worker-crash-mid-stream --short against the containers: the kill happens, nothing is lost, every invariant holds', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'sluice-chaos-compose-')), 'run');
    const scenario = join(REPO_ROOT, 'examples', 'chaos', 'worker-crash-mid-stream.yaml');
    const run = await runSluice(
      ['chaos', scenario, '--short', '--compose', '--compose-project', stack!.project, '--gateway', gatewayUrl, `--nats.url=${natsUrl}`, '--out', out, '--json'],
      { timeoutMs: 170_000 },
    );
    const logs = run.code === 0 ? '' : await stack!.logs();
    expect(run.code, `${run.stdout}\n${run.stderr}\n${logs}`).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReportFile;
    const chaos = report.chaos!;
    expect(chaos.target).toBe('compose');
    const [kill] = chaos.faults;
    expect(kill).toMatchObject({ action: 'kill', target: 'worker-1', error: null });
    expect(kill!.firedAtMs).not.toBeNull();
    for (const invariant of chaos.invariants) expect(invariant.status, `${invariant.id}: ${invariant.details.join('; ')}`).not.toBe('fail');
    expect(chaos.passed).toBe(true);
    // The killed container runs again.
    await eventually(async () => (await stack!.run(['ps', '-q', 'worker'])).stdout.trim().split('\n').filter(Boolean).length === 2, 30_000, 'two worker containers running');
  }, 200_000);
});
