import { describe, expect, it } from 'vitest';
import { freePort } from './net.js';
import { NatsUnavailableError, parseNatsServers, startNats } from './nats-server.js';

describe('parseNatsServers', () => {
  it('reads host and port from the URL forms NATS_URL takes', () => {
    expect(parseNatsServers('nats://127.0.0.1:4222')).toEqual([{ host: '127.0.0.1', port: 4222 }]);
    expect(parseNatsServers('localhost')).toEqual([{ host: 'localhost', port: 4222 }]);
    expect(parseNatsServers('nats://u:p@a:1, tls://b:2')).toEqual([
      { host: 'a', port: 1 },
      { host: 'b', port: 2 },
    ]);
    expect(parseNatsServers('nats://[::1]:4222')).toEqual([{ host: '::1', port: 4222 }]);
  });
});

describe('startNats without a server', () => {
  it('explains how to get one when there is no URL, no binary and no Docker', async () => {
    const error = await startNats({ binary: false, docker: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NatsUnavailableError);
    const { message } = error as Error;
    expect(message).toContain('apt-get install nats-server');
    expect(message).toContain('brew install nats-server');
    expect(message).toContain('docker run -p 4222:4222 nats:2.10-alpine');
    expect(message).toContain('NATS_URL');
  });

  it('rejects a given URL nothing listens on, naming it', async () => {
    const port = await freePort();
    const error = await startNats({ url: `nats://127.0.0.1:${port}`, timeoutMs: 500 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NatsUnavailableError);
    expect((error as Error).message).toContain(`nats://127.0.0.1:${port}`);
    expect((error as Error).message).toContain('not reachable');
  });

  it('refuses a local cluster it cannot start: with a given URL, or without the binary', async () => {
    const withUrl = await startNats({ url: 'nats://127.0.0.1:4222', clusterSize: 3 }).catch((e: unknown) => e);
    expect(withUrl).toBeInstanceOf(NatsUnavailableError);
    expect((withUrl as Error).message).toContain('nats.clusterSize 3 starts a local NATS cluster; it cannot be combined with nats.url');
    const noBinary = await startNats({ binary: false, docker: true, clusterSize: 3 }).catch((e: unknown) => e);
    expect((noBinary as Error).message).toContain('nats.clusterSize 3 needs the nats-server binary');
  });
});
