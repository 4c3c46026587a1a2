import { inboxPrefixOf, type BusIdentity } from '@sluice/contracts';
import type { LocalCluster } from '@sluice/launcher';

/**
 * How a test reaches the bus of a cluster that requires credentials (nats.auth, on by default),
 * as the identity whose part it plays: the CLI as `control`, a joining worker as `worker`. On an
 * open bus (`--nats.auth=false`) there are no credentials to give.
 */

/** Flags that point a `sluice` command, or a process joining the cluster, at its NATS as `identity`. */
export function natsArgsAs(cluster: LocalCluster, identity: BusIdentity): string[] {
  const id = cluster.natsIdentity(identity);
  return [
    `--nats.url=${cluster.natsUrl}`,
    ...(id ? [`--nats.user=${id.user}`, `--nats.passwordFile=${id.passwordFile}`] : []),
    ...(cluster.natsTls ? [`--nats.tls.caFile=${cluster.natsTls.caFile}`] : []),
  ];
}

/** `Bus.connect` options (url, credentials, the identity's inbox) for a client playing `identity`. */
export function busOptionsAs(cluster: LocalCluster, identity: BusIdentity): { url: string; credentials?: { user: string; password: string }; inboxPrefix?: string; tls?: { caFile: string } } {
  const id = cluster.natsIdentity(identity);
  return {
    url: cluster.natsUrl,
    ...(id ? { credentials: { user: id.user, password: id.password }, inboxPrefix: inboxPrefixOf(identity) } : {}),
    ...(cluster.natsTls ? { tls: { caFile: cluster.natsTls.caFile } } : {}),
  };
}
