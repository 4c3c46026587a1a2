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

/** The networks a container is on, with the aliases it has there (`docker inspect` of `.NetworkSettings.Networks`). */
export function parseNetworks(json: string): { readonly network: string; readonly aliases: readonly string[] }[] {
  const networks = JSON.parse(json) as Record<string, { Aliases?: string[] | null } | null>;
  return Object.entries(networks).map(([network, settings]) => ({ network, aliases: settings?.Aliases ?? [] }));
}
