/**
 * The containers of a Compose project as chaos names them. Compose labels every container with
 * its service and its replica number (from 1), whichever Compose version started it, so the
 * docker CLI alone finds them: `worker` replica 2 is `worker-1`, as the local cluster names its
 * second worker process.
 */

export interface ComposeContainer {
  readonly id: string;
  /** `gateway`, `router`, `worker-0`, …, `nats`. */
  readonly name: string;
  readonly service: string;
}

/** `docker ps` arguments listing a project's containers in the format parseContainers reads. */
export function listContainersArgs(project: string): string[] {
  return [
    'ps',
    '--all',
    '--no-trunc',
    '--filter',
    `label=com.docker.compose.project=${project}`,
    '--format',
    '{{.ID}}\t{{.Label "com.docker.compose.service"}}\t{{.Label "com.docker.compose.container-number"}}',
  ];
}

export function parseContainers(text: string): ComposeContainer[] {
  const containers: ComposeContainer[] = [];
  for (const line of text.split('\n')) {
    const [id, service, number] = line.trim().split('\t');
    if (!id || !service) continue;
    const replica = Number(number);
    const name = service === 'worker' ? `worker-${Number.isInteger(replica) && replica > 0 ? replica - 1 : 0}` : service;
    containers.push({ id, name, service });
  }
  return containers.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The NATS node a Compose service is: docker-compose.yml's one server `nats` is node 0, and
 * docker-compose.nats-cluster.yml adds `nats-1`, `nats-2` (its `nats` runs as server nats-0).
 */
export function natsNodeIndex(service: string): number | undefined {
  if (service === 'nats') return 0;
  const match = /^nats-([0-9]+)$/.exec(service);
  return match ? Number(match[1]) : undefined;
}

/** `docker inspect` arguments giving what parseNatsNodeState reads. */
export function inspectNatsNodeArgs(id: string): string[] {
  return ['inspect', '--format', '{{.State.Running}}\t{{json .NetworkSettings.Ports}}', id];
}

/** Whether a NATS container runs, and where the host reaches its monitoring port (8222) when it is published. */
export function parseNatsNodeState(text: string): { readonly running: boolean; readonly monitorUrl: string | undefined } {
  const [running = '', ports = 'null'] = text.trim().split('\t');
  const bindings = (JSON.parse(ports) as Record<string, { HostIp?: string; HostPort?: string }[] | null> | null)?.['8222/tcp'] ?? [];
  const binding = bindings.find((b) => b.HostPort);
  return { running: running === 'true', monitorUrl: binding?.HostPort ? `http://${urlHost(binding.HostIp)}:${binding.HostPort}` : undefined };
}

/** A published port's address as a URL host: a wildcard binding is reached on loopback; IPv6 takes brackets. */
function urlHost(ip: string | undefined): string {
  if (!ip || ip === '0.0.0.0') return '127.0.0.1';
  if (ip === '::') return '[::1]';
  return ip.includes(':') ? `[${ip}]` : ip;
}
