import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario, ScenarioLoadError } from './load-scenario.js';

const WORKLOAD = `seed: 3
aggregate_rate: 10
num_requests: 100
clients:
  - id: a
    tenant_id: t
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 32 } }
    output_distribution: { type: constant, params: { value: 8 } }
`;

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'sluice-chaos-scenario-'));
}

describe('loading a scenario', () => {
  it('reads a workload file relative to the scenario, wherever the command runs from', () => {
    const root = dir();
    mkdirSync(join(root, 'scenarios'));
    mkdirSync(join(root, 'workloads'));
    writeFileSync(join(root, 'workloads', 'w.yaml'), WORKLOAD);
    writeFileSync(join(root, 'scenarios', 's.yaml'), 'name: s\nworkload: ../workloads/w.yaml\nfaults:\n  - { atMs: 1000, action: kill, target: worker }\n');
    const loaded = loadScenario(join(root, 'scenarios', 's.yaml'));
    expect(loaded.workloadFile).toBe(join(root, 'workloads', 'w.yaml'));
    expect(loaded.spec.num_requests).toBe(100);
    expect(loaded.faults).toEqual([{ atMs: 1000, action: 'kill', target: 'worker' }]);
  });

  it('scales an inline workload and the faults together', () => {
    const root = dir();
    writeFileSync(join(root, 's.yaml'), `name: s\nworkload:\n${WORKLOAD.replace(/^/gm, '  ')}\nfaults:\n  - { atMs: 1000, action: pause, target: router, forMs: 500 }\n`);
    const loaded = loadScenario(join(root, 's.yaml'), 0.2);
    expect(loaded.workloadFile).toBe(join(root, 's.yaml'));
    expect(loaded.spec.num_requests).toBe(20);
    expect(loaded.faults).toEqual([{ atMs: 200, action: 'pause', target: 'router', forMs: 100 }]);
    expect(loaded.scale).toBe(0.2);
  });

  it('names the file and the key path of every problem', () => {
    const root = dir();
    writeFileSync(join(root, 'bad.yaml'), 'name: s\nworkload: w.yaml\nfaults:\n  - { atMs: 10, action: pause, target: router }\n');
    expect(() => loadScenario(join(root, 'bad.yaml'))).toThrow(/bad\.yaml: faults\[0\]\.forMs/);
    writeFileSync(join(root, 'ok.yaml'), 'name: s\nworkload: w.yaml\n');
    expect(() => loadScenario(join(root, 'ok.yaml'))).toThrow(/w\.yaml: cannot read it \(ENOENT\)/);
    writeFileSync(join(root, 'w.yaml'), WORKLOAD.replace('aggregate_rate: 10', 'aggregate_rate: 0'));
    expect(() => loadScenario(join(root, 'ok.yaml'))).toThrow(ScenarioLoadError);
    expect(() => loadScenario(join(root, 'ok.yaml'))).toThrow(/w\.yaml: workload: aggregate_rate: must be > 0/);
    writeFileSync(join(root, 'inline.yaml'), `name: s\nworkload:\n${WORKLOAD.replace('aggregate_rate: 10', 'aggregate_rate: -1').replace(/^/gm, '  ')}`);
    expect(() => loadScenario(join(root, 'inline.yaml'))).toThrow(/inline\.yaml: workload\.aggregate_rate: must be > 0/);
  });
});
