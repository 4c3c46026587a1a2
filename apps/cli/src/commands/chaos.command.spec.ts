import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFaultRegistry } from '@sluice/workload';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { chaosCommand, clusterArgs } from './chaos.command.js';

const run = (...argv: string[]) => runInProcess(chaosCommand, argv.slice(1));

/** Usage errors: each exits 2 before a cluster is started. */
describe('sluice chaos usage', () => {
  it('lists its options', async () => {
    const help = await run('chaos', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sluice chaos SCENARIO.yaml');
    expect(help.stdout).toContain('--short');
  });

  it('lists the faults a scenario can name, from the fault registry', async () => {
    const help = await run('chaos', '--help');
    expect(help.stdout).toContain(`Faults (docs/chaos.md): ${createFaultRegistry().actions().join(', ')}.`);
    expect(help.stdout).toContain('disconnect, restart-nats, stop-nats-node');
  });

  it('refuses a missing scenario, contradicting flags and compose options without --compose', async () => {
    expect((await run('chaos')).stderr).toContain('missing the scenario file');
    const both = await run('chaos', 's.yaml', '--short', '--scale', '0.5');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--short and --scale contradict each other');
    expect((await run('chaos', 's.yaml', '--scale', '-1')).stderr).toContain('--scale: "-1" is not a number > 0');
    expect((await run('chaos', 's.yaml', '--gateway', 'http://x')).stderr).toContain('go with --compose');
  });

  it('names the file and key path of a bad scenario, and a bad cluster flag', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-chaos-usage-'));
    writeFileSync(join(dir, 'bad.yaml'), 'name: bad\nworkload: w.yaml\nfaults:\n  - { atMs: -5, action: kill, target: worker }\n');
    const bad = await run('chaos', join(dir, 'bad.yaml'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bad.yaml: faults[0].atMs: must be >= 0');
    writeFileSync(join(dir, 'w.yaml'), 'seed: 1\naggregate_rate: 5\nnum_requests: 5\nclients:\n  - { id: a, tenant_id: t, slo_class: standard, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 8 } }, output_distribution: { type: constant, params: { value: 4 } } }\n');
    writeFileSync(join(dir, 'flags.yaml'), 'name: flags\nworkload: w.yaml\ncluster: { worker.processes: 0 }\n');
    const flags = await run('chaos', join(dir, 'flags.yaml'));
    expect(flags.code).toBe(2);
    expect(flags.stderr).toContain('worker.processes');
  });

  it('passes the scenario cluster map as config flags', () => {
    expect(clusterArgs({ 'worker.processes': 2, 'flowController.enabled': false, 'router.policy': 'least-loaded' })).toEqual([
      '--worker.processes=2',
      '--flowController.enabled=false',
      '--router.policy=least-loaded',
    ]);
  });
});
