import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { runSluice } from '@sluice/testing';
import { buildReport } from '@sluice/metrics';
import type { RunReportFile } from '@sluice/report';
import type { TwinChaosReport } from '@sluice/twin';
import { fromActualSend } from './hop-source.js';

/**
 * The twin against the live cluster: one small workload at light load, run live at timeScale 1
 * and in the twin with the paths the live run measured (`--hop-sampling paired`: each request of
 * the twin takes its live counterpart's hops, so no draw adds noise). Counts must agree exactly
 * and the TTFT median within 5%; what is left of the gap is routing and queueing that came out
 * differently (a busy machine's timers move arrivals by a millisecond or two).
 */
const WORKLOAD = `
seed: 21
aggregate_rate: 8
num_requests: 96
clients:
  - id: chat
    tenant_id: acme
    slo_class: critical
    rate_fraction: 1
    arrival: { process: poisson }
    prefix_group: system
    prefix_length: 256
    input_distribution: { type: constant, params: { value: 128 } }
    output_distribution: { type: constant, params: { value: 16 } }
  - id: api
    tenant_id: globex
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 384 } }
    output_distribution: { type: constant, params: { value: 12 } }
`;
/** The cluster's config, the same for the live run and the twin. */
const CONFIG = ['--worker.instances=2', '--router.policy=least-loaded'];

describe('sluice simulate against the live cluster', () => {
  let cluster: LocalCluster;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-twin-'));
    writeFileSync(join(dir, 'workload.yaml'), WORKLOAD);
    // Warmed up, as a serving system is warm: the launcher's warm-up, four at a time and in every
    // request shape (streamed ones too, as the run's are), under a tenant of its own.
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, ...CONFIG], warmUpRequests: 20 });
  });
  afterAll(() => cluster?.stop());

  it('agrees with the live run on every count and on TTFT p50 within 5%, and is deterministic', async () => {
    const live = join(dir, 'live');
    const run = await runSluice(['run', join(dir, 'workload.yaml'), '--gateway', cluster.gatewayUrl, '--out', live, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const twin = join(dir, 'twin');
    const again = join(dir, 'twin-again');
    const profile = join(dir, 'laptop.hops.json');
    const drawn = join(dir, 'twin-drawn');
    const hopArgs = ['--hop-latency-from', join(live, 'report.json'), '--hop-sampling', 'paired'];
    // Three twins of the live run at once (each its own process; the twin runs in virtual time, so
    // running beside another changes nothing in it): paired, paired again for determinism, and
    // drawn from the live paths while they are saved as a hop profile.
    const [sim, simAgain, simDrawn] = await Promise.all([
      runSluice(['simulate', join(dir, 'workload.yaml'), ...CONFIG, ...hopArgs, '--out', twin, '--json']),
      runSluice(['simulate', join(dir, 'workload.yaml'), ...CONFIG, ...hopArgs, '--out', again, '--json']),
      runSluice(['simulate', join(dir, 'workload.yaml'), ...CONFIG, '--hop-latency-from', join(live, 'report.json'), '--save-hop-profile', profile, '--out', drawn, '--json']),
    ]);
    expect(sim.code, sim.stderr).toBe(0);

    const liveReport = JSON.parse(readFileSync(join(live, 'report.json'), 'utf8')) as RunReportFile;
    const a = liveReport.summary;
    const b = (JSON.parse(readFileSync(join(twin, 'report.json'), 'utf8')) as RunReportFile).summary;
    expect(b.conservation.books).toEqual(a.conservation.books);
    for (const cls of Object.keys(a.bySloClass)) expect(b.bySloClass[cls]!.completed).toBe(a.bySloClass[cls]!.completed);
    expect(b.overall.outputTokens).toBe(a.overall.outputTokens);
    // The live TTFTs count from the schedule and so include the load client's lag; the twin's
    // clients are never late and its paths start at the actual send (hop-source's fromActualSend).
    // The server against the server: the live TTFTs from the actual send.
    const liveTtftP50 = buildReport(liveReport.records.map(fromActualSend)).overall.ttft.p50!;
    const gap = Math.abs(b.overall.ttft.p50! - liveTtftP50) / liveTtftP50;
    expect(gap, `TTFT p50 live ${liveTtftP50} ms from the actual send (${a.overall.ttft.p50} ms from the schedule), twin ${b.overall.ttft.p50} ms`).toBeLessThan(0.05);

    // The same workload, config and seed: byte-identical JSON.
    expect(simAgain.code).toBe(0);
    expect(readFileSync(join(again, 'report.json'), 'utf8').replace(again, twin)).toBe(readFileSync(join(twin, 'report.json'), 'utf8'));

    // The live paths kept as a hop profile, then named in the config: the same run as drawing
    // from the report itself (one sample per request served live).
    expect(simDrawn.code).toBe(0);
    const saved = JSON.parse(readFileSync(profile, 'utf8')) as { kind: string; samples: unknown[] };
    expect(saved.kind).toBe('sluice-hop-profile');
    expect(saved.samples).toHaveLength(a.overall.completed);
    const fromConfig = join(dir, 'twin-profile');
    expect((await runSluice(['simulate', join(dir, 'workload.yaml'), ...CONFIG, `--twin.hopProfile=${profile}`, '--out', fromConfig, '--json'])).code).toBe(0);
    const summaryOf = (d: string) => (JSON.parse(readFileSync(join(d, 'report.json'), 'utf8')) as RunReportFile).summary;
    expect(summaryOf(fromConfig)).toEqual(summaryOf(drawn));
  });
});

/**
 * A chaos scenario in the twin, through the real CLI: its workload file beside it, its cluster
 * flags, one fault the twin models (a worker process killed mid-stream) and one it cannot (NATS
 * restarted). No cluster: virtual time. (The shape of examples/chaos/worker-crash-mid-stream.yaml,
 * at timeScale 1 and a lighter load, so the spec does not depend on the examples' tuning.)
 */
const CHAOS_WORKLOAD = `
seed: 5
aggregate_rate: 10
num_requests: 60
clients:
  - id: chat
    tenant_id: acme
    slo_class: standard
    rate_fraction: 1
    arrival: { process: poisson }
    input_distribution: { type: constant, params: { value: 256 } }
    output_distribution: { type: constant, params: { value: 200 } }
`;
const CHAOS_SCENARIO = `
name: worker-crash
description: worker-1 dies while it streams; its requests continue on worker-0.
cluster: { worker.processes: 2, worker.instances: 2 }
workload: workload.yaml
faults:
  - { atMs: 2000, action: kill, target: worker-1, note: mid-stream }
  - { atMs: 1000, action: restart-nats, forMs: 500 }
`;

type ChaosReportFile = RunReportFile & { readonly twinChaos: TwinChaosReport & { readonly scenario: { readonly name: string } } };

describe('sluice simulate --chaos', () => {
  it('runs the scenario in virtual time: the killed worker\'s streams migrate and finish, the fault it cannot model is listed, the same report twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-twin-chaos-'));
    writeFileSync(join(dir, 'workload.yaml'), CHAOS_WORKLOAD);
    writeFileSync(join(dir, 'scenario.yaml'), CHAOS_SCENARIO);
    const out = join(dir, 'a');
    const again = join(dir, 'b');
    // The scenario twice at once, for the same report twice: two processes in virtual time.
    const simulate = (d: string) => runSluice(['simulate', '--chaos', join(dir, 'scenario.yaml'), '--out', d, '--json']);
    const [sim, simAgain] = await Promise.all([simulate(out), simulate(again)]);
    expect(sim.code, sim.stderr).toBe(0);
    expect(sim.stderr).toMatch(/not modelled in the twin: faults\[1\] restart-nats/);

    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as ChaosReportFile;
    expect(report.workload).toMatchObject({ file: join(dir, 'workload.yaml'), requests: 60 });
    expect(report.summary.conservation.books).toMatchObject({ requests: 60, completed: 60, failed: { total: 0 } });
    const { twinChaos } = report;
    expect(twinChaos.scenario.name).toBe('worker-crash');
    expect(twinChaos.faults[0]).toMatchObject({ action: 'kill', target: 'worker-1', note: 'mid-stream', modelled: true, firedAtMs: twinChaos.t0Ms + 2_000 });
    expect(twinChaos.faults[1]).toMatchObject({ action: 'restart-nats', modelled: false, firedAtMs: null });
    expect(twinChaos.migrations.total).toBeGreaterThan(0);
    expect(twinChaos.migrations.byReason).toEqual({ worker_lost: twinChaos.migrations.total });
    for (const r of report.records) {
      expect(r.tokenTimesMs).toHaveLength(200);
      for (let i = 1; i < 200; i++) expect(r.tokenTimesMs![i]!).toBeGreaterThan(r.tokenTimesMs![i - 1]!);
    }

    expect(simAgain.code).toBe(0);
    expect(readFileSync(join(again, 'report.json'), 'utf8')).toBe(readFileSync(join(out, 'report.json'), 'utf8'));
  });
});
