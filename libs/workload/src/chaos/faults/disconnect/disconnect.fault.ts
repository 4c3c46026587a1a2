import { z } from 'zod';
import { defineFault, type LiveFaultRun } from '../fault-definition.js';
import { AT, PositiveMs } from '../fault-fields.js';
import { shortId, type ComposeFaultPort } from '../live-ports.js';
import { processName, ProcessTargetSchema } from '../process-target.js';
import { inspectNetworksArgs, parseNetworks, reconnectArgs, type ContainerNetwork } from './docker-networks.js';

/** Under compose only: the container is disconnected from its networks for `forMs`, then connected again with its aliases. */
export const DisconnectFaultSchema = z.strictObject({ ...AT, action: z.literal('disconnect'), target: ProcessTargetSchema, forMs: PositiveMs });
export type DisconnectFault = z.output<typeof DisconnectFaultSchema>;

export const disconnectFault = defineFault({
  action: 'disconnect',
  schema: DisconnectFaultSchema,
  examples: [{ atMs: 8_000, action: 'disconnect', target: 'router', forMs: 2_000 }],
  target: (fault) => fault.target,
  // Local processes share the host's loopback: there is no network of theirs to take away.
  local: { unsupported: 'disconnect takes a container off its network: run the scenario with --compose' },
  compose: { run: disconnectContainer },
  twin: { notModelled: (fault) => `disconnect of ${fault.target}: the twin has no network to partition` },
});

/** The run remembers the networks it took the container off, so the undo puts it back on those. */
function disconnectContainer(fault: DisconnectFault, { port }: { port: ComposeFaultPort }): LiveFaultRun {
  let detached: readonly ContainerNetwork[] = [];
  const names = (networks: readonly ContainerNetwork[]) => networks.map((n) => n.network).join(', ');
  return {
    async start() {
      const container = await port.container(processName(fault.target));
      const networks = parseNetworks(await port.docker(inspectNetworksArgs(container.id)));
      for (const { network } of networks) await port.docker(['network', 'disconnect', network, container.id]);
      detached = networks;
      return `docker network disconnect ${names(networks)} ${shortId(container)}`;
    },
    async undo() {
      const container = await port.container(processName(fault.target));
      const networks = detached;
      for (const network of networks) await port.docker(reconnectArgs(container.id, container.service, network));
      detached = [];
      return `docker network connect ${names(networks)} ${shortId(container)}`;
    },
  };
}
