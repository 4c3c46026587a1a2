import { describe, expect, it } from 'vitest';
import { dockerCliAvailable } from './docker.js';
import { canConnect, natsAnswers, parseNatsServers, startNats } from './index.js';

/** The third way `sluice up` gets NATS: no URL, no binary, so a container via the docker CLI. */
const docker = await dockerCliAvailable();
const required = process.env.CI === 'true';

describe.runIf(docker || required)('startNats falling back to Docker', () => {
  it('runs nats:2.10-alpine on a mapped loopback port and removes the container on stop', async () => {
    if (!docker) throw new Error('CI=true but `docker info` fails: the Docker fallback cannot be tested');
    const nats = await startNats({ binary: false });
    expect(nats.kind).toBe('docker');
    expect(nats.containerId).toMatch(/^[0-9a-f]{12,}$/);
    const [server] = parseNatsServers(nats.url);
    expect(server?.host).toBe('127.0.0.1');
    expect(await natsAnswers(server!.host, server!.port)).toBe(true);

    await nats.stop();
    expect(await canConnect(server!.host, server!.port, 500)).toBe(false);
  });
});
