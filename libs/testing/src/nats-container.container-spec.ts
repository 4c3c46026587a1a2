import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { postCompletion, sseData } from './completions.js';
import { dockerAvailable, startNatsContainer, type NatsContainer } from './containers.js';

/**
 * NATS in a Docker container (Testcontainers), the services as processes against it, one
 * request end to end. In CI a missing Docker engine fails this suite: it must not pass by skipping.
 */
const docker = await dockerAvailable();
const required = process.env.CI === 'true';

describe.runIf(docker || required)('the cluster on NATS in a container', () => {
  let nats: NatsContainer;
  let cluster: LocalCluster;

  beforeAll(async () => {
    if (!docker) throw new Error('CI=true but no Docker engine answers: the Testcontainers suite cannot run');
    nats = await startNatsContainer();
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      natsUrl: nats.url,
      configArgs: [...FREE_PORT_ARGS, '--worker.timeScale=10', '--worker.instances=2'],
      parallel: true,
    });
  });

  afterAll(async () => {
    await cluster?.stop();
    await nats?.stop();
  });

  it('serves a streaming completion through the containerized bus', async () => {
    expect(cluster.natsUrl).toBe(nats.url);
    const res = await postCompletion(cluster.gatewayUrl, { prompt: 'containers', max_tokens: 8, stream: true });
    expect(res.status).toBe(200);
    const events = sseData(await res.text());
    expect(events).toHaveLength(9);
    expect(events.at(-1)).toBe('[DONE]');
  });
});
