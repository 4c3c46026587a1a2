// testcontainers is loaded on first use only: most specs import this lib without starting a
// container, and need not pay for loading it (nor have it installed: it is a dev dependency).
import type { StartedTestContainer } from 'testcontainers';
import { DEFAULT_NATS_IMAGE } from '@sluice/launcher';

export interface NatsContainer {
  /** `nats://<host>:<mapped port>`. */
  readonly url: string;
  /** `http://<host>:<mapped port>` of the monitoring endpoint (/varz, /connz, /healthz). */
  readonly monitorUrl: string;
  readonly container: StartedTestContainer;
  /** Removes the container; idempotent. */
  stop(): Promise<void>;
}

/**
 * A NATS server in a container (Testcontainers), for specs that need one NATS per suite without a
 * local binary. The image defaults to SLUICE_NATS_IMAGE, else nats:2.10-alpine.
 */
export async function startNatsContainer(image: string = process.env.SLUICE_NATS_IMAGE ?? DEFAULT_NATS_IMAGE): Promise<NatsContainer> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer(image)
    .withExposedPorts(4222, 8222)
    .withCommand(['-p', '4222', '-m', '8222'])
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  const host = container.getHost();
  const hostPart = host.includes(':') ? `[${host}]` : host;
  let stopping: Promise<void> | undefined;
  return {
    url: `nats://${hostPart}:${container.getMappedPort(4222)}`,
    monitorUrl: `http://${hostPart}:${container.getMappedPort(8222)}`,
    container,
    stop: () => (stopping ??= container.stop({ remove: true, timeout: 2_000 }).then(() => undefined)),
  };
}

/** True if Testcontainers finds a working container runtime (Docker socket, DOCKER_HOST, …). */
export async function dockerAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}
