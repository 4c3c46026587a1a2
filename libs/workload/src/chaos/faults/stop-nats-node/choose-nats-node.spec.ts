import { describe, expect, it } from 'vitest';
import type { ChaosNatsNode } from '../live-ports.js';
import { chooseNatsNode } from './choose-nats-node.js';

const node = (index: number, connections: number | undefined, running = true): ChaosNatsNode => ({ index, name: `nats-${index}`, running, connections });

describe('choosing the NATS node to stop', () => {
  it('takes the running node with the most client connections, the first of equals', () => {
    expect(chooseNatsNode([node(0, 3), node(1, 3), node(2, 1)], 'busiest')).toEqual({ node: node(0, 3), why: 'nats-0 (3 of 7 client connections)' });
    expect(chooseNatsNode([node(0, undefined, false), node(1, 2), node(2, 4)], 'busiest').node.index).toBe(2);
  });

  it('takes a node by index, and says why it cannot', () => {
    expect(chooseNatsNode([node(0, 1), node(1, 0)], 1).why).toBe('nats-1 (0 of 1 client connections)');
    expect(() => chooseNatsNode([node(0, 1), node(1, 0)], 2)).toThrow('no NATS node 2: the cluster has nats-0, nats-1');
    expect(() => chooseNatsNode([node(0, undefined, false), node(1, 0)], 0)).toThrow('NATS node nats-0 is already stopped');
  });

  it('does not guess the busiest when a running node did not report its connections', () => {
    expect(() => chooseNatsNode([node(0, 4), node(1, undefined)], 'busiest')).toThrow(/cannot tell the busiest NATS node: nats-1 did not report connections .* name the node instead/);
    expect(() => chooseNatsNode([node(0, undefined, false)], 'busiest')).toThrow('no NATS node is running');
  });
});
