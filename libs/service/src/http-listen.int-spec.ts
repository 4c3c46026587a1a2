import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenWithAcceptors } from './http-listen.js';

/** Several listening sockets feeding one HTTP server, on real sockets. */
const servers: { close: (cb?: () => void) => unknown }[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** Listening sockets on `port` (/proc/net/tcp, state 0A), as the kernel sees them. */
function listeners(port: number): number {
  const hexPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').filter((line) => {
    const f = line.trim().split(/\s+/);
    return f[3] === '0A' && f[1]?.endsWith(hexPort);
  }).length;
}

function httpServer(): Server {
  const server = createServer((req, res) => res.end(`${req.url}`));
  servers.push(server);
  return server;
}

describe('listenWithAcceptors', () => {
  it('answers every connection through the one HTTP server, whichever socket accepted it', async () => {
    const server = httpServer();
    const { port } = await listenWithAcceptors(server, { port: 0, host: '127.0.0.1', backlog: 64, acceptors: 4 });
    expect(listeners(port)).toBe(4);
    // Each fetch on its own connection: the kernel spreads them over the four sockets.
    const bodies = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`http://127.0.0.1:${port}/n${i}`, { headers: { connection: 'close' } }).then((r) => r.text())));
    expect(bodies).toEqual(Array.from({ length: 40 }, (_, i) => `/n${i}`));
  });

  it('refuses a port another process listens on, as a plain listen would, instead of sharing it', async () => {
    const other = createNetServer();
    servers.push(other);
    await new Promise<void>((resolve) => other.listen({ port: 0, host: '127.0.0.1', reusePort: true }, resolve));
    const { port } = other.address() as AddressInfo;
    await expect(listenWithAcceptors(httpServer(), { port, host: '127.0.0.1', backlog: 64, acceptors: 2 })).rejects.toThrow(/EADDRINUSE/);
  });

  it('stops taking connections on every socket when the server is closed', async () => {
    const server = httpServer();
    const { port } = await listenWithAcceptors(server, { port: 0, host: '127.0.0.1', backlog: 64, acceptors: 4 });
    servers.pop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(listeners(port)).toBe(0);
    const attempts = await Promise.all(Array.from({ length: 8 }, () => fetch(`http://127.0.0.1:${port}/`).then(() => 'answered', (e: Error) => (e.cause as { code?: string })?.code ?? e.message)));
    expect(attempts).toEqual(Array.from({ length: 8 }, () => 'ECONNREFUSED'));
  });
});
