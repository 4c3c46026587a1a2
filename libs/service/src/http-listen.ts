import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { Server } from 'node:http';

export interface ListenOptions {
  readonly port: number;
  readonly host: string;
  /** The accept queue of each listening socket (the kernel caps it at net.core.somaxconn). */
  readonly backlog: number;
  /** Listening sockets on the port, all feeding the one HTTP server. */
  readonly acceptors: number;
}

/**
 * Listens with several sockets on the one port (SO_REUSEPORT), each handing what it accepts to
 * the same HTTP server.
 *
 * Why: Node's event loop accepts one connection per readiness event of a listening socket, then
 * polls again (seen with strace: one `accept4` per `epoll_pwait`). A busy gateway polls a few
 * hundred times a second (each poll's frames fan out to hundreds of open streams), so new
 * connections were accepted at ~500/s while clients opened 780/s: the accept queue grew to ~750
 * and a `/healthz` on a new connection waited up to 1.1 s, while the event loop never lagged more
 * than ~50 ms (tools/bench/overload.mjs). With N sockets the kernel spreads connections
 * over them and each poll can accept N. The sockets share the port only with processes of the
 * same user, as SO_REUSEPORT requires.
 */
export async function listenWithAcceptors(server: Server, options: ListenOptions): Promise<AddressInfo> {
  const { host, backlog } = options;
  // SO_REUSEPORT would also let this process share a port another one (a second cluster started
  // by the same user) already listens on, each taking a share of the other's clients. Binding once
  // without it first fails with EADDRINUSE in that case, as a plain listen would.
  const port = await claimPort(options.port, host);
  await listening(server, { port, host, backlog, reusePort: true });
  const extra: NetServer[] = [];
  for (let i = 1; i < options.acceptors; i++) {
    const acceptor = createNetServer({ noDelay: true }, (socket) => server.emit('connection', socket));
    await listening(acceptor, { port, host, backlog, reusePort: true });
    extra.push(acceptor);
  }
  // Closing the server stops every acceptor at once, as closing one listening socket would: the
  // graceful shutdown closes the server to take no new connections while open streams finish.
  const close = server.close.bind(server);
  server.close = (callback?: (error?: Error) => void) => {
    for (const acceptor of extra) acceptor.close();
    return close(callback);
  };
  return server.address() as AddressInfo;
}

/** Binds the port alone (or a free one for 0) and lets it go: EADDRINUSE if anyone listens there. */
async function claimPort(port: number, host: string): Promise<number> {
  const probe = createNetServer();
  await listening(probe, { port, host, backlog: 1, reusePort: false });
  const claimed = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return claimed;
}

function listening(server: NetServer, options: { port: number; host: string; backlog: number; reusePort: boolean }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
