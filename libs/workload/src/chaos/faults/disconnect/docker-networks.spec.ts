import { describe, expect, it } from 'vitest';
import { parseNetworks, reconnectArgs } from './docker-networks.js';

describe('docker networks of a disconnected container', () => {
  it('reads the networks a container is on with its aliases there', () => {
    expect(parseNetworks('{"sluice_default":{"Aliases":["router","1a2b"]},"other":{"Aliases":null}}')).toEqual([
      { network: 'sluice_default', aliases: ['router', '1a2b'] },
      { network: 'other', aliases: [] },
    ]);
  });

  it('reconnects with the service name as an alias, once, whatever inspect listed', () => {
    expect(reconnectArgs('c1', 'router', { network: 'sluice_default', aliases: ['router', '1a2b'] })).toEqual(['network', 'connect', '--alias', 'router', '--alias', '1a2b', 'sluice_default', 'c1']);
    expect(reconnectArgs('c1', 'router', { network: 'other', aliases: [] })).toEqual(['network', 'connect', '--alias', 'router', 'other', 'c1']);
  });
});
