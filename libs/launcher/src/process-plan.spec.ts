import { loadConfig } from '@sluice/config';
import { describe, expect, it } from 'vitest';
import { ClusterStartError } from './cluster-errors.js';
import { planProcesses, type PickPorts } from './process-plan.js';
import { servicesOf } from './services.js';

/** Hands out 20000, 20001, … and records each call, so a test sees which ports came from where. */
function fakePorts(): { pick: PickPorts; calls: [number, string][] } {
  let next = 20_000;
  const calls: [number, string][] = [];
  return {
    calls,
    pick: async (count, host) => {
      calls.push([count, host]);
      return Array.from({ length: count }, () => next++);
    },
  };
}

const plan = (args: string[], pick: PickPorts = fakePorts().pick) => {
  const config = loadConfig({ env: {}, argv: args });
  return planProcesses(servicesOf(config), config, args, pick).then((result) => ({ ...result, config }));
};

describe('planProcesses', () => {
  it('runs the autoscaler only when it is enabled, as one process on autoscaler.port', async () => {
    expect((await plan([])).processes.map((p) => p.service)).not.toContain('autoscaler');
    const { processes } = await plan(['--autoscaler.enabled=true', '--router.replicas=2']);
    expect(processes.filter((p) => p.service === 'autoscaler').map((p) => [p.name, p.port, p.args])).toEqual([['autoscaler', 9099, []]]);
    // Its default port is worker-1's (worker.port + 1) once there are two worker processes: refused, naming both.
    await expect(plan(['--autoscaler.enabled=true', '--autoscaler.port=9105', '--worker.processes=2'])).rejects.toThrow(/autoscaler and worker-1 would both listen on 127\.0\.0\.1:9105/);
    // Started last, so it stops first.
    expect(processes.at(-1)?.service).toBe('autoscaler');
  });

  it('runs one process per service, the single worker as worker-0 on worker.port', async () => {
    const { processes, sharedArgs } = await plan([]);
    expect(processes.map((p) => [p.name, p.service, p.port, p.args])).toEqual([
      ['worker-0', 'worker', 9104, []],
      ['router', 'router', 9103, []],
      ['flow-controller', 'flow-controller', 9102, []],
      ['admission', 'admission', 9101, []],
      ['gateway', 'gateway', 8080, []],
    ]);
    expect(sharedArgs).toEqual([]);
  });

  it('puts worker-i on worker.port + i, with its own --worker.port', async () => {
    const { processes } = await plan(['--worker.processes=3', '--worker.port=9200']);
    expect(processes.filter((p) => p.service === 'worker').map((p) => [p.name, p.port, p.picked, p.args])).toEqual([
      ['worker-0', 9200, false, []],
      ['worker-1', 9201, false, ['--worker.port=9201']],
      ['worker-2', 9202, false, ['--worker.port=9202']],
    ]);
  });

  it('runs a stage’s replicas as router-0, router-1, …: the first on the port, the others on free ones (a single replica keeps the plain name)', async () => {
    const ports = fakePorts();
    const { processes } = await plan(['--router.replicas=3', '--gateway.replicas=2', '--admission.replicas=1'], ports.pick);
    expect(ports.calls).toEqual([[3, '127.0.0.1']]);
    expect(processes.filter((p) => p.service === 'router' || p.service === 'gateway' || p.service === 'admission').map((p) => [p.name, p.port, p.picked, p.args])).toEqual([
      ['router-0', 9103, false, []],
      ['router-1', 20_000, true, ['--router.port=20000']],
      ['router-2', 20_001, true, ['--router.port=20001']],
      ['admission', 9101, false, []],
      ['gateway-0', 8080, false, []],
      ['gateway-1', 20_002, true, ['--gateway.port=20002']],
    ]);
  });

  it('picks distinct free ports for port 0 in one call per host, and writes them back into the config', async () => {
    const ports = fakePorts();
    const args = ['--gateway.port=0', '--router.port=0', '--worker.port=0', '--worker.processes=2'];
    const { processes, sharedArgs, config } = await plan(args, ports.pick);
    expect(ports.calls).toEqual([[4, '127.0.0.1']]);
    const byName = Object.fromEntries(processes.map((p) => [p.name, p]));
    expect([byName['worker-0']!.port, byName['worker-1']!.port, byName.router!.port, byName.gateway!.port]).toEqual([20_000, 20_001, 20_002, 20_003]);
    expect(byName['worker-1']).toMatchObject({ picked: true, args: ['--worker.port=20001'] });
    expect(byName.admission).toMatchObject({ port: 9101, picked: false });
    expect(config.worker.port).toBe(20_000);
    expect(config.gateway.port).toBe(20_003);
    expect(sharedArgs).toEqual([...args, '--worker.port=20000', '--router.port=20002', '--gateway.port=20003']);
  });

  it('refuses worker ports that run into another service or past 65535, naming both', async () => {
    const clash = await plan(['--worker.processes=2', '--worker.port=9100', '--admission.port=9101']).catch((e: unknown) => e);
    expect(clash).toBeInstanceOf(ClusterStartError);
    expect((clash as Error).message).toContain('admission and worker-1 would both listen on 127.0.0.1:9101');
    expect((clash as Error).message).toContain('worker.port + i');
    const high = await plan(['--worker.processes=2', '--worker.port=65535']).catch((e: unknown) => e);
    expect((high as Error).message).toContain('worker-1 would listen on port 65536');
  });
});
