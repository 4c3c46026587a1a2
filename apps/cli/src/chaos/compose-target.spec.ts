import { describe, expect, it } from 'vitest';
import type { DockerResult } from '@sluice/launcher';
import { createFaultRegistry, liveRun, whyUnsupported, type Fault } from '@sluice/workload';
import { ComposeTarget } from './compose-target.js';
import { noFaultControls } from './fault-controls.js';

/**
 * The compose target's NATS-node handling against a recorded docker CLI, driven by the
 * stop-nats-node fault's compose action (the containers test, chaos-compose.container-spec.ts,
 * runs both against real containers): which projects can lose a node, how nodes are listed, which
 * container a stop and a start reach.
 */
function target(services: readonly string[], inspect: (id: string) => string = () => 'true\t{}') {
  const calls: string[] = [];
  const docker = (args: readonly string[]): Promise<DockerResult> => {
    calls.push(args.join(' '));
    if (args[0] === 'ps') return Promise.resolve({ code: 0, stdout: services.map((s) => `id-${s}\t${s}\t1`).join('\n'), stderr: '' });
    if (args[0] === 'inspect') return Promise.resolve({ code: 0, stdout: inspect(args.at(-1)!), stderr: '' });
    return Promise.resolve({ code: 0, stdout: '', stderr: '' });
  };
  return { compose: new ComposeTarget({ project: 'p', gatewayUrl: 'http://gw', natsUrl: 'nats://n', docker }), calls };
}

const stopNatsNode = createFaultRegistry().get('stop-nats-node');
const kill = createFaultRegistry().get('kill');
const stop = (node: number): Fault => ({ atMs: 0, action: 'stop-nats-node', node, forMs: 5 });

describe('compose target: NATS nodes', () => {
  it('refuses stop-nats-node on a project with one NATS server, naming the override to start it with', async () => {
    const { compose } = target(['gateway', 'nats', 'worker']);
    expect(await whyUnsupported(stopNatsNode, stop(0), compose)).toBe('compose project "p" runs one NATS server: start it on a NATS cluster with -f docker-compose.yml -f docker-compose.nats-cluster.yml');
    expect(await whyUnsupported(kill, { atMs: 0, action: 'kill', target: 'worker' }, compose)).toBeUndefined();
    expect(await compose.natsNodes()).toEqual([]);
    expect(await whyUnsupported(stopNatsNode, stop(0), target(['gateway', 'nats', 'nats-1', 'nats-2']).compose)).toBeUndefined();
  });

  it('lists the nodes in order (nats is nats-0), leaves them out of the processes, and kills and starts the one asked for', async () => {
    const { compose, calls } = target(['nats-2', 'gateway', 'nats', 'nats-1'], (id) => (id === 'id-nats-1' ? 'false\t{}' : 'true\t{"8222/tcp":null}'));
    expect(await compose.natsNodes()).toEqual([
      { index: 0, name: 'nats-0', running: true, connections: undefined },
      { index: 1, name: 'nats-1', running: false, connections: undefined },
      { index: 2, name: 'nats-2', running: true, connections: undefined },
    ]);
    expect((await compose.processes()).map((p) => p.name)).toEqual(['gateway']);
    const run = liveRun(stopNatsNode, stop(2), compose, noFaultControls);
    expect(await run.start()).toBe('nats-2 (connections unknown): docker kill id-nats-2 (nats-2)');
    expect(await run.undo!()).toBe('nats-2 back: docker start id-nats-2 (nats-2)');
    expect(calls.filter((c) => /^(kill|start)/.test(c))).toEqual(['kill id-nats-2', 'start id-nats-2']);
    await expect(compose.natsNodeContainer(3)).rejects.toThrow('compose project "p" has no NATS node 3 (it has nats, nats-1, nats-2)');
  });

  it('names the containers there are when a fault names one the project lacks', async () => {
    await expect(target(['gateway', 'nats']).compose.container('router')).rejects.toThrow('compose project "p" has no container "router" (it has gateway, nats)');
    await expect(target([]).compose.container('router')).rejects.toThrow(/has no containers: is it up/);
  });
});
