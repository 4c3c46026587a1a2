import { describe, expect, it } from 'vitest';
import { ChaosScenarioError, faultWindow, parseChaosScenario } from './scenario.js';

const WORKLOAD = `
  seed: 1
  aggregate_rate: 10
  num_requests: 20
  clients:
    - id: a
      tenant_id: t
      slo_class: standard
      rate_fraction: 1
      arrival: { process: poisson }
      input_distribution: { type: constant, params: { value: 32 } }
      output_distribution: { type: constant, params: { value: 8 } }
`;

describe('chaos scenario', () => {
  it('reads a workload inline, a timeline of faults and the cluster flags', () => {
    const scenario = parseChaosScenario(`
name: crash
cluster: { worker.processes: 2 }
workload:${WORKLOAD.replace(/\n {2}/g, '\n    ')}
faults:
  - { atMs: 1000, action: kill, target: worker-1 }
  - { atMs: 2000, action: pause, target: router, forMs: 500 }
  - { atMs: 3000, action: bus-faults, subject: "sluice.v1.router.>", dropPercent: 5, forMs: 1000 }
`);
    expect(scenario.cluster).toEqual({ 'worker.processes': 2 });
    expect(scenario.faults.map((f) => f.action)).toEqual(['kill', 'pause', 'bus-faults']);
    expect(scenario.faults.map(faultWindow)).toEqual([
      { startMs: 1000, endMs: undefined },
      { startMs: 2000, endMs: 2500 },
      { startMs: 3000, endMs: 4000 },
    ]);
  });

  it('names the key path of each problem: an unknown target, a pause with no duration', () => {
    const attempt = () =>
      parseChaosScenario(`
name: bad
workload: w.yaml
faults:
  - { atMs: 10, action: kill, target: db }
  - { atMs: 20, action: pause, target: router }
`);
    expect(attempt).toThrow(ChaosScenarioError);
    expect(attempt).toThrow(/faults\[0\]\.target: must be gateway, admission/);
    expect(attempt).toThrow(/faults\[1\]\.forMs/);
  });

  it('slows some instances by count, as ids are drawn at start; not both an id and a count', () => {
    const fault = (extra: string) => `name: slow\nworkload: w.yaml\nfaults:\n  - { atMs: 10, action: worker-faults, slowdown: 4, ${extra} }\n`;
    expect(parseChaosScenario(fault('instanceCount: 1')).faults[0]).toEqual({ atMs: 10, action: 'worker-faults', slowdown: 4, instanceCount: 1 });
    expect(() => parseChaosScenario(fault('instanceCount: 1, instance: w-r0'))).toThrow(/faults\[0\]\.instanceCount: give instance or instanceCount, not both/);
    expect(() => parseChaosScenario(fault('instanceCount: 0'))).toThrow(/faults\[0\]\.instanceCount: must be > 0/);
  });

  it('stops a NATS node by index or, by default, the busiest; for good unless forMs says otherwise', () => {
    const fault = (extra: string) => parseChaosScenario(`name: nats\nworkload: w.yaml\nfaults:\n  - { atMs: 10, action: stop-nats-node${extra} }\n`).faults[0]!;
    expect(fault('')).toEqual({ atMs: 10, action: 'stop-nats-node', node: 'busiest' });
    expect(faultWindow(fault(''))).toEqual({ startMs: 10, endMs: undefined });
    expect(fault(', node: 2, forMs: 500')).toEqual({ atMs: 10, action: 'stop-nats-node', node: 2, forMs: 500 });
    expect(faultWindow(fault(', node: 2, forMs: 500'))).toEqual({ startMs: 10, endMs: 510 });
    expect(() => fault(', node: first')).toThrow(/faults\[0\]\.node: must be a node index \(0, 1, …\) or busiest/);
    expect(() => fault(', node: -1')).toThrow(/faults\[0\]\.node/);
    expect(() => fault(', target: nats')).toThrow(/faults\[0\]/);
  });
});
