import { z } from 'zod';
import { defineFault, FaultActionError, type LiveFaultRun } from '../fault-definition.js';
import { AT, PositiveMs } from '../fault-fields.js';
import { EXTERNAL_NATS, shortId, type ChaosNatsNode, type ComposeFaultPort } from '../live-ports.js';
import { chooseNatsNode } from './choose-nats-node.js';

/**
 * One node of a NATS cluster stops: for good (a lost node), or for `forMs` and then starts again
 * on its address. `node` is its index (nats-0 is the first; under compose the `nats` service, then
 * `nats-1`, …) or `busiest`: the node holding the most client connections when the fault fires,
 * the loss that moves the most services (clients pick a node at random, so a fixed index may hit
 * one nobody uses). Needs a NATS cluster: `nats.clusterSize: 3` in the scenario's cluster, or
 * docker-compose.nats-cluster.yml under compose.
 */
export const StopNatsNodeFaultSchema = z.strictObject({
  ...AT,
  action: z.literal('stop-nats-node'),
  node: z.union([z.number().int('must be a whole number').nonnegative('must be >= 0'), z.literal('busiest')], { error: 'must be a node index (0, 1, …) or busiest' }).default('busiest'),
  forMs: PositiveMs.optional(),
});
export type StopNatsNodeFault = z.output<typeof StopNatsNodeFaultSchema>;

export const stopNatsNodeFault = defineFault({
  action: 'stop-nats-node',
  schema: StopNatsNodeFaultSchema,
  examples: [{ atMs: 8_000, action: 'stop-nats-node', node: 'busiest', forMs: 3_000 }],
  target: (fault) => (fault.node === 'busiest' ? 'the busiest NATS node' : `nats-${fault.node}`),
  local: {
    whyNot: (_fault, port) => {
      if (port.nats === 'external') return Promise.resolve(EXTERNAL_NATS);
      if (port.nats === 'server') return Promise.resolve("NATS runs as one server: add `nats.clusterSize: 3` to the scenario's cluster (or --nats.clusterSize=3)");
      return Promise.resolve(undefined);
    },
    run: (fault, { port }) =>
      stopNode(fault, {
        nodes: () => port.natsNodes(),
        stop: async (index) => `nats-server pid ${(await port.stopNatsNode(index)).pid ?? '?'} stopped`,
        start: async (index) => {
          const { pid, url } = await port.startNatsNode(index);
          return `nats-server pid ${pid ?? '?'} started on ${url ?? '?'}`;
        },
      }),
  },
  compose: {
    whyNot: async (_fault, port) => {
      const servers = await port.natsServerCount();
      if (servers > 1) return undefined;
      return `compose project "${port.project}" runs ${servers === 0 ? 'no NATS container (is it up?)' : 'one NATS server'}: start it on a NATS cluster with -f docker-compose.yml -f docker-compose.nats-cluster.yml`;
    },
    run: (fault, { port }) =>
      stopNode(fault, {
        nodes: () => port.natsNodes(),
        // SIGKILL, as a node that crashes or whose host goes; the project gives NATS no restart policy, so it stays down.
        stop: (index) => dockerOnNode(port, 'kill', index),
        start: (index) => dockerOnNode(port, 'start', index),
      }),
  },
  twin: { notModelled: () => 'stop-nats-node: the twin has no NATS cluster (no connections to move to another node)' },
});

/** How one kind of target lists, stops and starts NATS nodes; each resolves to what was done. */
interface NatsNodeOps {
  nodes(): Promise<readonly ChaosNatsNode[]>;
  stop(index: number): Promise<string>;
  start(index: number): Promise<string>;
}

/**
 * The node is chosen when the fault fires (which is busiest depends on where the clients are by
 * then), and the run remembers it: the undo starts the node it stopped, wherever the clients went.
 */
function stopNode(fault: StopNatsNodeFault, ops: NatsNodeOps): LiveFaultRun {
  let stopped: number | undefined;
  return {
    async start() {
      const { node, why } = chooseNatsNode(await ops.nodes(), fault.node);
      const done = await ops.stop(node.index);
      stopped = node.index;
      return `${why}: ${done}${fault.forMs === undefined ? ', for good' : ''}`;
    },
    async undo() {
      if (stopped === undefined) throw new FaultActionError('the NATS node was not stopped, so there is none to start');
      return `nats-${stopped} back: ${await ops.start(stopped)}`;
    },
  };
}

async function dockerOnNode(port: ComposeFaultPort, verb: 'kill' | 'start', index: number): Promise<string> {
  const container = await port.natsNodeContainer(index);
  await port.docker([verb, container.id]);
  return `docker ${verb} ${shortId(container)} (${container.service})`;
}
