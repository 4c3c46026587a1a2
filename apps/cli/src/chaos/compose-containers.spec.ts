import { describe, expect, it } from 'vitest';
import { listContainersArgs, natsNodeIndex, parseContainers, parseNatsNodeState } from './compose-containers.js';

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

  it('numbers the NATS nodes: `nats` is node 0, the cluster override adds nats-1 and nats-2', () => {
    expect(['nats', 'nats-1', 'nats-2', 'nats-x', 'gateway'].map(natsNodeIndex)).toEqual([0, 1, 2, undefined, undefined]);
  });

  it("reads whether a NATS container runs and where its published monitoring port is", () => {
    expect(parseNatsNodeState('true\t{"4222/tcp":null,"6222/tcp":null,"8222/tcp":[{"HostIp":"127.0.0.1","HostPort":"32773"}]}\n')).toEqual({ running: true, monitorUrl: 'http://127.0.0.1:32773' });
    expect(parseNatsNodeState('true\t{"8222/tcp":[{"HostIp":"0.0.0.0","HostPort":"8222"},{"HostIp":"::","HostPort":"8222"}]}')).toEqual({ running: true, monitorUrl: 'http://127.0.0.1:8222' });
    expect(parseNatsNodeState('true\t{"4222/tcp":[{"HostIp":"127.0.0.1","HostPort":"4222"}],"8222/tcp":null}')).toEqual({ running: true, monitorUrl: undefined });
    expect(parseNatsNodeState('false\t{}')).toEqual({ running: false, monitorUrl: undefined });
  });
});
