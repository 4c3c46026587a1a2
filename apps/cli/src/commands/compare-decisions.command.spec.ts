import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DecisionComparison } from '@sluice/report';
import { runInProcess } from './run-in-process.js';
import type { Command } from './command.js';
import { compareDecisionsCommand } from './compare-decisions.command.js';
import { simulateCommand } from './simulate.command.js';

/** `sluice simulate --decision-trace` then `sluice compare-decisions`, through the commands themselves. */
const WORKLOAD = `
seed: 4
aggregate_rate: 50
num_requests: 40
clients:
  - { id: chat, tenant_id: acme, slo_class: standard, rate_fraction: 1, arrival: { process: poisson }, input_distribution: { type: constant, params: { value: 64 } }, output_distribution: { type: constant, params: { value: 8 } } }
`;

const sluice = (command: Command, dir: string, ...argv: string[]) => runInProcess(command, argv, { cwd: dir });

describe('sluice compare-decisions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-compare-decisions-'));
  writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
  const simulate = (trace: string, policy = 'least-loaded') => sluice(simulateCommand, dir, 'workload.yaml', '--out', `out-${trace}`, '--json', '--decision-trace', trace, '--worker.instances=2', `--router.policy=${policy}`);

  it('finds two runs of one config alike, and two policies apart, with each side\'s regret', async () => {
    for (const run of [await simulate('a.ndjson'), await simulate('b.ndjson'), await simulate('rr.ndjson', 'round-robin')]) expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'a.ndjson'), 'utf8')).toBe(readFileSync(join(dir, 'b.ndjson'), 'utf8'));

    const same = await sluice(compareDecisionsCommand, dir, 'a.ndjson', 'b.ndjson', '--json');
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toMatchObject({ matched: 40, agree: 40, inStep: 40, agreeInStep: 40, firstDisagreement: null });

    // Round-robin against least-loaded: they part somewhere, and the text names where, with both sides' candidates.
    const apart = await sluice(compareDecisionsCommand, dir, 'a.ndjson', 'rr.ndjson');
    expect(apart.code, apart.stderr).toBe(0);
    expect(apart.stdout).toMatch(/^agree: \d+ of 40 /m);
    expect(apart.stdout).toMatch(/first disagreement: r\d+ attempt 0/);
    expect(apart.stdout).toMatch(/^ {4}1\. twin-r\d score/m);
    const json = JSON.parse((await sluice(compareDecisionsCommand, dir, 'a.ndjson', 'rr.ndjson', '--json')).stdout) as DecisionComparison;
    expect(json.agree).toBeLessThan(40);
    expect(json.b.regret.count).toBe(40);
  });

  it('renames the gateway\'s ids with --ids, and refuses a report without them or a trace that is not one', async () => {
    const trace = readFileSync(join(dir, 'a.ndjson'), 'utf8').replaceAll('"requestId":"r', '"requestId":"cmpl-x');
    writeFileSync(join(dir, 'live.ndjson'), trace);
    writeFileSync(join(dir, 'ids.json'), JSON.stringify({ version: 1, records: Array.from({ length: 40 }, (_, i) => ({ id: `r${i}`, gatewayRequestId: `cmpl-x${i}` })) }));
    const unnamed = JSON.parse((await sluice(compareDecisionsCommand, dir, 'live.ndjson', 'a.ndjson', '--json')).stdout) as DecisionComparison;
    expect(unnamed.matched).toBe(0);
    const renamed = await sluice(compareDecisionsCommand, dir, 'live.ndjson', 'a.ndjson', '--ids', 'ids.json', '--json');
    expect(JSON.parse(renamed.stdout)).toMatchObject({ matched: 40, agree: 40 });

    const noIds = await sluice(compareDecisionsCommand, dir, 'a.ndjson', 'b.ndjson', '--ids', join('out-a.ndjson', 'report.json'));
    expect(noIds.code).not.toBe(0);
    expect(noIds.stderr).toMatch(/no record carries the gateway's request id/);
    const notTrace = await sluice(compareDecisionsCommand, dir, 'workload.yaml', 'a.ndjson');
    expect(notTrace.code).not.toBe(0);
    expect(notTrace.stderr).toMatch(/workload\.yaml:\d+: not JSON/);
    expect((await sluice(compareDecisionsCommand, dir, 'a.ndjson')).code).not.toBe(0);
  });
});
