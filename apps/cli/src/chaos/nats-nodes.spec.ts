import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChaosNatsNode } from './chaos-target.js';
import { chooseNatsNode, varzConnections } from './nats-nodes.js';

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

describe("reading a node's connections from its monitoring endpoint", () => {
  let server: Server;
  let url = '';
  beforeAll(async () => {
    // Stands in for nats-server's /varz (only the field read here).
    server = createServer((req, res) => {
      if (req.url === '/varz') res.end(JSON.stringify({ server_name: 'nats-0', connections: 6 }));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads connections from /varz; nothing when there is no endpoint or it does not answer', async () => {
    expect(await varzConnections(url)).toBe(6);
    expect(await varzConnections(undefined)).toBeUndefined();
    expect(await varzConnections(`${url}/elsewhere`)).toBeUndefined();
    expect(await varzConnections('http://127.0.0.1:1', 500)).toBeUndefined();
  });
});
