import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecisionTraceLineSchema } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, postCompletion, runSluice } from '@sluice/testing';

/**
 * An EndpointPickerConfig from GAIE's own examples starts a real cluster unchanged (NATS, every
 * service a child process given `--epp-config`), and its scheduling profile is what the router
 * runs: the decision trace names the weighted policy and the three scorers the file lists. One
 * with a plugin sluice does not have stops `sluice up` before anything starts, naming it.
 */
const FIXTURES = join(REPO_ROOT, 'libs', 'config', 'fixtures', 'endpoint-picker');
const HELM_DEFAULT = join(FIXTURES, 'gaie-helm-default.epp.yaml');
const REFUSED = join(FIXTURES, 'gaie-integration-default.epp.yaml');

describe('sluice up --epp-config', () => {
  let cluster: LocalCluster;
  let trace: string;
  beforeAll(async () => {
    trace = join(mkdtempSync(join(tmpdir(), 'sluice-epp-')), 'decisions.ndjson');
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      warmUpRequests: 0,
      readyTimeoutMs: 90_000, // a loaded CI machine starts five Node processes slowly
      configArgs: [...FREE_PORT_ARGS, '--epp-config', HELM_DEFAULT, '--worker.instances=2', '--worker.timeScale=4', `--router.decisionTrace=${trace}`],
    });
  });
  afterAll(() => cluster?.stop());

  it("serves a request routed by the config's scorers and weights", async () => {
    expect(cluster.config.router.policies.weighted?.weights).toEqual({ 'prefix-affinity': 3, 'queue-depth': 2, 'kv-utilization': 2 });
    expect((await postCompletion(cluster.gatewayUrl, { prompt: 'routed as the Endpoint Picker would', max_tokens: 4 })).status).toBe(200);
    // The router writes its trace off the event loop: the line lands a little after the answer.
    // The decision that placed the request: an attempt that reached the router before it had heard
    // of any instance is traced too (no candidates, handed back and sent again as a new attempt).
    const placed = () =>
      (existsSync(trace) ? readFileSync(trace, 'utf8').trimEnd().split('\n') : [])
        .filter((line) => line !== '')
        .map((line) => DecisionTraceLineSchema.parse(JSON.parse(line)))
        .find((line) => line.instance !== null);
    await eventually(() => placed() !== undefined, 10_000, 'the decision is in the trace');
    const decision = placed()!;
    expect(decision.policy).toBe('weighted');
    expect(Object.keys(decision.top[0]?.scores ?? {}).sort()).toEqual(['kv-utilization', 'prefix-affinity', 'queue-depth']);
  });
});

describe('sluice up --epp-config, before it starts anything', () => {
  it('says what the file became in sluice terms', async () => {
    // A NATS nobody serves: up stops after printing, before any process starts.
    const run = await runSluice(['up', '--no-demo', '--epp-config', HELM_DEFAULT, '--nats.url=nats://127.0.0.1:1', ...FREE_PORT_ARGS]);
    expect(run.code).not.toBe(0);
    expect(run.stdout).toContain(`endpoint picker: ${HELM_DEFAULT}: schedulingProfiles[0] → router.policy: weighted, weights queue-depth:2,kv-utilization:2,prefix-affinity:3`);
    expect(run.stdout).toContain(`endpoint picker: ${HELM_DEFAULT}: featureGates lacks flowControl → flowController.enabled: false`);
  });
});

describe('sluice up with an EndpointPickerConfig it cannot honour', () => {
  it('exits 2 before starting anything, naming the plugin by its YAML path', async () => {
    const run = await runSluice(['up', '--no-demo', '--epp-config', REFUSED, ...FREE_PORT_ARGS]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('plugins[3].type: "lora-affinity-scorer" is not supported: sluice has no LoRA adapters');
  });
});

describe('sluice simulate --epp-config', () => {
  it("runs the twin with the same profile: the twin's decisions name the config's scorers", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-epp-twin-'));
    writeFileSync(
      join(dir, 'workload.yaml'),
      'seed: 3\naggregate_rate: 5\nnum_requests: 5\nclients:\n  - { id: c, tenant_id: t, slo_class: standard, rate_fraction: 1, arrival: { process: constant }, input_distribution: { type: constant, params: { value: 32 } }, output_distribution: { type: constant, params: { value: 2 } } }\n',
    );
    const run = await runSluice(['simulate', join(dir, 'workload.yaml'), '--epp-config', HELM_DEFAULT, '--out', join(dir, 'out'), '--decision-trace', join(dir, 'twin.ndjson'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const lines = readFileSync(join(dir, 'twin.ndjson'), 'utf8').trimEnd().split('\n').map((l) => DecisionTraceLineSchema.parse(JSON.parse(l)));
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(Object.keys(line.top[0]?.scores ?? {}).sort()).toEqual(['kv-utilization', 'prefix-affinity', 'queue-depth']);
  });
});
