import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { varzConnections } from './nats-nodes.js';

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
