import { describe, expect, it } from 'vitest';
import { remoteHostsOf } from './control-bus.js';

describe('where the CLI may send credentials without TLS', () => {
  it('names the hosts of a NATS URL list that are off this machine', () => {
    expect(remoteHostsOf('nats://127.0.0.1:4222')).toEqual([]);
    expect(remoteHostsOf('nats://localhost:4222,nats://[::1]:4223')).toEqual([]);
    expect(remoteHostsOf('nats://127.0.0.1:4222,nats://10.1.2.3:4222')).toEqual(['10.1.2.3']);
    expect(remoteHostsOf('nats.example.com:4222')).toEqual(['nats.example.com']);
    expect(remoteHostsOf('nats://0.0.0.0:4222')).toEqual(['0.0.0.0']);
  });
});
