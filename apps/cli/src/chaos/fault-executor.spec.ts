import { describe, expect, it } from 'vitest';
import type { BusFaultRule, SetWorkerFaults } from '@sluice/contracts';
import type { Fault } from '@sluice/workload';
import type { ChaosNatsNode, ChaosProcess, ChaosTarget, ProcessAction } from './chaos-target.js';
import type { FaultControls } from './fault-controls.js';
import { FaultExecutor } from './fault-executor.js';

/** Records what was asked of the cluster and of the bus. */
class Recorder implements ChaosTarget, FaultControls {
  readonly kind = 'local' as const;
  readonly gatewayUrl = 'http://gateway';
  readonly natsUrl = 'nats://nats';
  readonly natsCredentials = undefined;
  readonly config = null;
  readonly calls: string[] = [];
  /** A 3-node NATS cluster: nats-1 holds the most connections. */
  nodes: ChaosNatsNode[] = [0, 1, 2].map((index) => ({ index, name: `nats-${index}`, running: true, connections: [2, 5, 1][index] }));
  unsupported = () => Promise.resolve(undefined);
  processes = (): Promise<readonly ChaosProcess[]> => Promise.resolve([]);
  act = (name: string, action: ProcessAction) => this.record(`${action} ${name}`);
  restartNats = async (downMs: number) => void (await this.record(`restart-nats ${downMs}`));
  natsNodes = () => Promise.resolve(this.nodes);
  stopNatsNode = (index: number) => this.record(`stop nats-${index}`);
  startNatsNode = (index: number) => this.record(`start nats-${index}`);
  close = () => Promise.resolve();
  workerInstances = () => Promise.resolve(['w-b-r1', 'w-a-r0', 'w-a-r1'].sort());
  setWorkerFaults = (request: SetWorkerFaults) => this.record(`worker-faults ${JSON.stringify(request)}`);
  setBusFault = (rule: BusFaultRule) => this.record(`bus set ${JSON.stringify(rule)}`);
  clearBusFault = (subject: string) => this.record(`bus clear ${subject}`);
  private record(call: string): Promise<string> {
    this.calls.push(call);
    return Promise.resolve(call);
  }
}

async function run(fault: Fault): Promise<string[]> {
  const r = new Recorder();
  const executor = new FaultExecutor(r, r);
  await executor.execute(fault, 'start');
  await executor.execute(fault, 'undo');
  return r.calls;
}

describe('executing a fault', () => {
  it('signals processes; `worker` is worker-0', async () => {
    expect(await run({ atMs: 0, action: 'pause', target: 'router', forMs: 5 })).toEqual(['pause router', 'resume router']);
    expect(await run({ atMs: 0, action: 'disconnect', target: 'worker', forMs: 5 })).toEqual(['disconnect worker-0', 'reconnect worker-0']);
    expect((await run({ atMs: 0, action: 'kill', target: 'worker-1' }))[0]).toBe('kill worker-1');
    expect((await run({ atMs: 0, action: 'restart-nats', forMs: 700 }))[0]).toBe('restart-nats 700');
  });

  it('sets worker knobs and resets only those it set; adds and clears a bus rule', async () => {
    expect(await run({ atMs: 0, action: 'worker-faults', instance: 'w-1', slowdown: 4, forMs: 5 })).toEqual([
      'worker-faults {"instanceId":"w-1","faults":{"slowdown":4}}',
      'worker-faults {"instanceId":"w-1","faults":{"slowdown":1}}',
    ]);
    expect(await run({ atMs: 0, action: 'worker-faults', failureRate: 0.5, hang: true })).toEqual([
      'worker-faults {"faults":{"failureRate":0.5,"hang":true}}',
      'worker-faults {"faults":{"failureRate":0,"hang":false}}',
    ]);
    expect(await run({ atMs: 0, action: 'worker-faults', instanceCount: 2, slowdown: 3 })).toEqual([
      'worker-faults {"instanceId":"w-a-r0","faults":{"slowdown":3}}',
      'worker-faults {"instanceId":"w-a-r1","faults":{"slowdown":3}}',
      'worker-faults {"instanceId":"w-a-r0","faults":{"slowdown":1}}',
      'worker-faults {"instanceId":"w-a-r1","faults":{"slowdown":1}}',
    ]);
    expect(await run({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 0, jitterMs: 0, dropPercent: 5, duplicatePercent: 0, forMs: 9 })).toEqual([
      'bus set {"subject":"sluice.v1.router.submit","delayMs":0,"jitterMs":0,"dropPercent":5,"duplicatePercent":0}',
      'bus clear sluice.v1.router.submit',
    ]);
  });

  it('stops the busiest NATS node when it fires, or the one named, and starts that one again after forMs', async () => {
    const r = new Recorder();
    const executor = new FaultExecutor(r, r);
    const forAWhile: Fault = { atMs: 0, action: 'stop-nats-node', node: 'busiest', forMs: 50 };
    expect(await executor.execute(forAWhile, 'start')).toBe('nats-1 (5 of 8 client connections): stop nats-1');
    // Where the clients went meanwhile does not matter: the undo starts the node it stopped.
    r.nodes = r.nodes.map((n) => ({ ...n, running: n.index !== 1, connections: n.index === 1 ? undefined : 9 }));
    expect(await executor.execute(forAWhile, 'undo')).toBe('nats-1 back: start nats-1');
    expect(await executor.execute({ atMs: 0, action: 'stop-nats-node', node: 2 }, 'start')).toBe('nats-2 (9 of 18 client connections): stop nats-2, for good');
    await expect(executor.execute({ atMs: 0, action: 'stop-nats-node', node: 1 }, 'start')).rejects.toThrow('NATS node nats-1 is already stopped');
    await expect(executor.execute({ atMs: 0, action: 'stop-nats-node', node: 3 }, 'start')).rejects.toThrow('no NATS node 3: the cluster has nats-0, nats-1, nats-2');
  });
});
