import { connect, createServer, type Server, type Socket } from 'node:net';

/** A wildcard bind address is reached through loopback. */
export function connectHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

/** Whether a host names this machine's loopback (what no other machine can listen on). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** `host:port` for a URL: IPv6 literals in brackets, wildcards as loopback. */
export function urlHostPort(host: string, port: number): string {
  const h = connectHost(host);
  return h.includes(':') && !h.startsWith('[') ? `[${h}]:${port}` : `${h}:${port}`;
}

/** Resolves after ms, or at once when `signal` aborts (never rejects). */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Opens a TCP connection and lets `watch` decide the answer; always ends with the socket
 * destroyed, a timeout or an error answering false.
 */
function probe(host: string, port: number, timeoutMs: number, watch: (socket: Socket, done: (ok: boolean) => void) => void): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: connectHost(host), port });
    const done = (ok: boolean): void => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    watch(socket, done);
  });
}

/** True if something accepts a TCP connection on host:port within timeoutMs. */
export function canConnect(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return probe(host, port, timeoutMs, (socket, done) => socket.once('connect', () => done(true)));
}

/**
 * True if a NATS server answers on host:port: it sends its `INFO {...}` line as soon as a client
 * connects, so this is a real readiness signal (a port forwarder may accept before the server runs).
 */
export function natsAnswers(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return probe(host, port, timeoutMs, (socket, done) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.length >= 5) done(received.startsWith('INFO '));
    });
    socket.once('close', () => done(false));
  });
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (address && typeof address === 'object') resolve(address.port);
      else reject(new Error('could not read the bound port'));
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * `count` distinct ports that were free on `host` a moment ago (the OS picks them; they are held
 * together so they differ, then released for the caller's process to bind).
 */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    const ports: number[] = [];
    for (const server of servers) ports.push(await listen(server, connectHost(host)));
    return ports;
  } finally {
    await Promise.all(servers.map((s) => (s.listening ? close(s) : Promise.resolve())));
  }
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [port] = await freePorts(1, host);
  if (port === undefined) throw new Error('no free port');
  return port;
}
