import { describe, expect, it } from 'vitest';
import type { BusFaultRule, SetWorkerFaults } from '@sluice/contracts';
import type { DockerResult } from '@sluice/launcher';
import { createFaultRegistry, type Fault, type FaultControls, type LiveTarget } from '@sluice/workload';
import { ComposeTarget } from './compose-target.js';
import { FaultExecutor } from './fault-executor.js';

/**
 * The executor with the real compose target on a recorded docker CLI and recorded control
 * messages: each fault's own compose action runs (libs/workload's fault specs say what each does
 * on every target), started and undone through one run, so the undo reaches what the start chose.
 */
class Recorded implements FaultControls {
  readonly calls: string[] = [];
  readonly target = new ComposeTarget({
    project: 'p',
    gatewayUrl: 'http://gw',
    natsUrl: 'nats://n',
    docker: (args) => this.docker(args),
  });

  workerInstances = () => Promise.resolve(['w-b-r1', 'w-a-r0', 'w-a-r1'].sort());
  setWorkerFaults = (request: SetWorkerFaults) => this.record(`worker-faults ${JSON.stringify(request)}`);
  setBusFault = (rule: BusFaultRule) => this.record(`bus set ${rule.subject}`);
  clearBusFault = (subject: string) => this.record(`bus clear ${subject}`);

  private docker(args: readonly string[]): Promise<DockerResult> {
    const stdout = args[0] === 'ps' ? ['gateway', 'router', 'nats', 'nats-1'].map((s) => `id-${s}\t${s}\t1`).join('\n') : args[0] === 'inspect' ? 'true\t{}' : '';
    if (args[0] !== 'ps' && args[0] !== 'inspect') this.calls.push(`docker ${args.join(' ')}`);
    return Promise.resolve({ code: 0, stdout, stderr: '' });
  }

  private record(call: string): Promise<string> {
    this.calls.push(call);
    return Promise.resolve(call);
  }
}

async function run(fault: Fault, target?: LiveTarget): Promise<string[]> {
  const r = new Recorded();
  const executor = new FaultExecutor(createFaultRegistry(), target ?? r.target, r);
  await executor.execute(fault, 'start');
  await executor.execute(fault, 'undo');
  return r.calls;
}

describe('executing a fault', () => {
  it("runs the fault's action for the target's kind, start then undo", async () => {
    expect(await run({ atMs: 0, action: 'pause', target: 'router', forMs: 5 })).toEqual(['docker pause id-router', 'docker unpause id-router']);
    expect(await run({ atMs: 0, action: 'bus-faults', subject: 'sluice.v1.router.submit', delayMs: 0, jitterMs: 0, dropPercent: 5, duplicatePercent: 0, forMs: 9 })).toEqual([
      'bus set sluice.v1.router.submit',
      'bus clear sluice.v1.router.submit',
    ]);
  });

  it('keeps one run per fault: the undo resets the instances and starts the node its start chose', async () => {
    expect(await run({ atMs: 0, action: 'worker-faults', instanceCount: 2, slowdown: 3 })).toEqual([
      'worker-faults {"instanceId":"w-a-r0","faults":{"slowdown":3}}',
      'worker-faults {"instanceId":"w-a-r1","faults":{"slowdown":3}}',
      'worker-faults {"instanceId":"w-a-r0","faults":{"slowdown":1}}',
      'worker-faults {"instanceId":"w-a-r1","faults":{"slowdown":1}}',
    ]);
    expect(await run({ atMs: 0, action: 'stop-nats-node', node: 1, forMs: 5 })).toEqual(['docker kill id-nats-1', 'docker start id-nats-1']);
  });

  it('rejects what the target cannot do, and an undo of a fault that has none', async () => {
    const r = new Recorded();
    const executor = new FaultExecutor(createFaultRegistry(), r.target, r);
    const restart: Fault = { atMs: 0, action: 'restart-nats', forMs: 1 };
    await expect(executor.execute(restart, 'undo')).rejects.toThrow('restart-nats has no undo');
    const local: LiveTarget = {
      kind: 'local',
      nats: 'server',
      signal: () => Promise.reject(new Error('not asked')),
      restartNats: () => Promise.reject(new Error('not asked')),
      natsNodes: () => Promise.resolve([]),
      stopNatsNode: () => Promise.reject(new Error('not asked')),
      startNatsNode: () => Promise.reject(new Error('not asked')),
    };
    await expect(new FaultExecutor(createFaultRegistry(), local, r).execute({ atMs: 0, action: 'disconnect', target: 'router', forMs: 5 }, 'start')).rejects.toThrow(
      'disconnect takes a container off its network: run the scenario with --compose',
    );
    expect(r.calls).toEqual([]);
  });
});
