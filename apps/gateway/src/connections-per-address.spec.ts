import { describe, expect, it } from 'vitest';
import { ConnectionsPerAddress, clientAddressOf } from './connections-per-address.js';

describe('ConnectionsPerAddress', () => {
  it('refuses an address its cap+1-th connection, not another address, and takes it again once one closes', () => {
    const connections = new ConnectionsPerAddress(2);
    expect([connections.tryOpen('10.0.0.1'), connections.tryOpen('10.0.0.1'), connections.tryOpen('10.0.0.1')]).toEqual([true, true, false]);
    expect(connections.tryOpen('10.0.0.2')).toBe(true);
    expect(connections.total).toBe(3);
    connections.close('10.0.0.1');
    expect(connections.tryOpen('10.0.0.1')).toBe(true);
  });

  it('forgets an address once its last connection closes, and ignores a close it never counted', () => {
    const connections = new ConnectionsPerAddress(1);
    connections.tryOpen('::1');
    connections.close('::1');
    connections.close('::1');
    connections.close('192.0.2.9');
    expect(connections.total).toBe(0);
    expect(connections.addresses).toBe(0);
  });

  it('caps nothing with 0', () => {
    const connections = new ConnectionsPerAddress(0);
    for (let i = 0; i < 10_000; i++) expect(connections.tryOpen('127.0.0.1')).toBe(true);
  });
});

describe('clientAddressOf', () => {
  it('counts an IPv4 client on a dual-stack socket under its IPv4 address', () => {
    expect(clientAddressOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddressOf('10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddressOf('2001:db8::1')).toBe('2001:db8::1');
    expect(clientAddressOf(undefined)).toBeUndefined();
  });
});
