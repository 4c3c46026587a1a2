import { FaultActionError } from '../fault-definition.js';
import type { ChaosNatsNode } from '../live-ports.js';

/**
 * Which node of a NATS cluster a `stop-nats-node` fault stops. Clients connect to a node at
 * random, so the fault that shows the most is the loss of the node holding the most client
 * connections (`busiest`); a node can also be named by index. Each target lists its nodes with
 * the connection counts their monitoring endpoints report; the choice is made here, alike for both.
 */

export interface ChosenNatsNode {
  readonly node: ChaosNatsNode;
  /** How the choice reads in a report: `nats-1 (5 of 8 client connections)`. */
  readonly why: string;
}

/** Picks the node a fault names (`busiest` or an index) among the running ones; throws FaultActionError saying why none fits. */
export function chooseNatsNode(nodes: readonly ChaosNatsNode[], choice: number | 'busiest'): ChosenNatsNode {
  const running = nodes.filter((n) => n.running);
  const total = running.reduce((sum, n) => sum + (n.connections ?? 0), 0);
  const why = (node: ChaosNatsNode) => `${node.name} (${node.connections === undefined ? 'connections unknown' : `${node.connections} of ${total} client connections`})`;
  if (choice !== 'busiest') {
    const node = nodes.find((n) => n.index === choice);
    if (!node) throw new FaultActionError(`no NATS node ${choice}: the cluster has ${nodes.map((n) => n.name).join(', ')}`);
    if (!node.running) throw new FaultActionError(`NATS node ${node.name} is already stopped`);
    return { node, why: why(node) };
  }
  if (running.length === 0) throw new FaultActionError('no NATS node is running');
  const unread = running.filter((n) => n.connections === undefined);
  if (unread.length > 0) {
    throw new FaultActionError(`cannot tell the busiest NATS node: ${unread.map((n) => n.name).join(', ')} did not report connections (monitoring port 8222 not reachable); name the node instead (node: 0, 1, …)`);
  }
  // The first of equals, so a rerun on the same layout picks alike.
  const busiest = running.reduce((best, n) => (n.connections! > best.connections! ? n : best));
  return { node: busiest, why: why(busiest) };
}
