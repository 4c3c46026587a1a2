import { afterAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { metricSum } from '@sluice/testing';

/**
 * worker.loadModelAtStart (a worker pod an HPA or KEDA created): a real worker process loads its
 * model before its instances register, and reports ready on /readyz only once they have, so the
 * launcher (or Kubernetes) counts it ready when it can serve.
 */
const MODEL_LOAD_MS = 3_000;
let cluster: LocalCluster | undefined;

afterAll(async () => {
  await cluster?.stop();
});

describe('a worker that loads its model at start', () => {
  it('is ready only after its instances have loaded their model, and then every one it runs is ready', async () => {
    let loadingSince: number | undefined;
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      services: ['worker'],
      configArgs: [...FREE_PORT_ARGS, '--worker.instances=2', '--worker.loadModelAtStart=true', `--worker.modelLoadMs=${MODEL_LOAD_MS}`, '--worker.timeScale=1'],
      readyTimeoutMs: 60_000,
      // The worker's start-up line comes as its instances begin to load.
      onLine: (_, line) => {
        if (line.includes('loading their model')) loadingSince ??= Date.now();
      },
    });
    const readyAt = Date.now();
    expect(loadingSince).toBeDefined();
    expect(readyAt - loadingSince!).toBeGreaterThanOrEqual(MODEL_LOAD_MS - 100);
    const worker = cluster.services.find((s) => s.name === 'worker')!.url;
    expect(await metricSum(worker, 'sluice_worker_instances', 'state="ready"')).toBe(2);
    expect(await metricSum(worker, 'sluice_worker_instances', 'state="starting"')).toBe(0);
  }, 90_000);
});
