/** A network a container is on, with the aliases other containers reach it by there. */
export interface ContainerNetwork {
  readonly network: string;
  readonly aliases: readonly string[];
}

/** `docker inspect` arguments giving what parseNetworks reads. */
export function inspectNetworksArgs(containerId: string): string[] {
  return ['inspect', '--format', '{{json .NetworkSettings.Networks}}', containerId];
}

/** The networks a container is on, with the aliases it has there (`docker inspect` of `.NetworkSettings.Networks`). */
export function parseNetworks(json: string): ContainerNetwork[] {
  const networks = JSON.parse(json) as Record<string, { Aliases?: string[] | null } | null>;
  return Object.entries(networks).map(([network, settings]) => ({ network, aliases: settings?.Aliases ?? [] }));
}

/**
 * `docker network connect` arguments putting a container back on a network. The service name is
 * the alias other containers reach it by: it must come back with it, whatever inspect listed.
 */
export function reconnectArgs(containerId: string, service: string, { network, aliases }: ContainerNetwork): string[] {
  return ['network', 'connect', ...[...new Set([service, ...aliases])].flatMap((alias) => ['--alias', alias]), network, containerId];
}
