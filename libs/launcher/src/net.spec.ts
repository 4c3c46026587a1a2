import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { canConnect, connectHost, freePorts, isLoopbackHost, urlHostPort } from './net.js';

describe('net helpers', () => {
  it('tells loopback hosts (which no other machine can listen on) from the rest', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.0.2.1', 'nats', 'localhost.example.com', '127.0.0.1.example.com', '']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('hands out distinct free ports that can be bound', async () => {
    const ports = await freePorts(3);
    expect(new Set(ports).size).toBe(3);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    server.close();
  });

  it('canConnect is true while something listens and false after it closes', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    expect(await canConnect('127.0.0.1', port)).toBe(true);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await canConnect('127.0.0.1', port, 500)).toBe(false);
  });

  it('turns wildcard bind addresses into loopback and brackets IPv6', () => {
    expect(connectHost('0.0.0.0')).toBe('127.0.0.1');
    expect(urlHostPort('0.0.0.0', 8080)).toBe('127.0.0.1:8080');
    expect(urlHostPort('::', 8080)).toBe('[::1]:8080');
    expect(urlHostPort('localhost', 1)).toBe('localhost:1');
  });
});
