import { describe, expect, it } from 'vitest';
import { listContainersArgs, parseContainers, parseNetworks } from './compose-containers.js';

describe('compose containers', () => {
  it('names containers by their Compose labels: worker replica n is worker-(n-1)', () => {
    const text = ['aaa\tgateway\t1', 'bbb\tworker\t2', 'ccc\tworker\t1', 'ddd\tnats\t1', 'eee\tflow-controller\t1', ''].join('\n');
    expect(parseContainers(text)).toEqual([
      { id: 'eee', name: 'flow-controller', service: 'flow-controller' },
      { id: 'aaa', name: 'gateway', service: 'gateway' },
      { id: 'ddd', name: 'nats', service: 'nats' },
      { id: 'ccc', name: 'worker-0', service: 'worker' },
      { id: 'bbb', name: 'worker-1', service: 'worker' },
    ]);
    expect(listContainersArgs('sluice')).toContain('label=com.docker.compose.project=sluice');
  });

  it('reads the networks a container is on with its aliases there', () => {
    expect(parseNetworks('{"sluice_default":{"Aliases":["router","1a2b"]},"other":{"Aliases":null}}')).toEqual([
      { network: 'sluice_default', aliases: ['router', '1a2b'] },
      { network: 'other', aliases: [] },
    ]);
  });
});
