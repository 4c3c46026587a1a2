import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config.error.js';
import { loadConfig } from './load-config.js';

function yamlFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sluice-config-')), 'sluice.yaml');
  writeFileSync(file, text);
  return file;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('gives a whole cluster from defaults alone', () => {
    const config = loadConfig({});
    expect(config.gateway).toMatchObject({ host: '127.0.0.1', port: 8080 });
    expect(config.admission.policy).toEqual(['always-admit']);
    expect(config.router.policy).toBe('round-robin');
    expect(config.worker.instances).toBe(4);
    expect(config.models.map((m) => m.name)).toEqual(['qwen3-14b']);
  });

  it('layers file < env < flags', () => {
    const file = yamlFile('gateway:\n  port: 9000\nworker:\n  instances: 2\n  timeScale: 5\n');
    const config = loadConfig({
      env: { SLUICE_CONFIG: file, SLUICE_WORKER__INSTANCES: '3', SLUICE_FLOW_CONTROLLER__PORT: '9999', NATS_URL: 'nats://h:1' },
      argv: ['--worker.instances=6', '--gateway.host', '0.0.0.0'],
    });
    expect(config.gateway.port).toBe(9000);
    expect(config.worker.timeScale).toBe(5);
    expect(config.worker.instances).toBe(6);
    expect(config.gateway.host).toBe('0.0.0.0');
    expect(config.flowController.port).toBe(9999);
    expect(config.nats.url).toBe('nats://h:1');
  });

  it('takes the file from --config before SLUICE_CONFIG', () => {
    const a = yamlFile('gateway:\n  port: 1111\n');
    const b = yamlFile('gateway:\n  port: 2222\n');
    expect(loadConfig({ env: { SLUICE_CONFIG: a }, argv: ['--config', b] }).gateway.port).toBe(2222);
  });

  it('names the key path and the allowed values of a bad enum', () => {
    const [problem] = problemsOf(() => loadConfig({ argv: ['--admission.policy=fastest'] }));
    expect(problem).toMatch(/^admission\.policy: /);
    expect(problem).toContain('always-admit');
  });

  it('takes an admission chain as a comma-separated flag or a YAML list, and names the entry that cannot work', () => {
    expect(loadConfig({ argv: ['--admission.policy=busy-threshold,token-bucket'] }).admission.policy).toEqual(['busy-threshold', 'token-bucket']);
    expect(loadConfig({ env: { SLUICE_ADMISSION__POLICY: 'token-bucket' } }).admission.policy).toEqual(['token-bucket']);
    const file = yamlFile('admission:\n  policy: [busy-threshold, token-bucket, slo-predictive]\n');
    expect(loadConfig({ file }).admission.policy).toEqual(['busy-threshold', 'token-bucket', 'slo-predictive']);
    expect(problemsOf(() => loadConfig({ file: yamlFile('admission:\n  policy: [token-bucket, token-bucket]\n') }))[0]).toBe('admission.policy[1]: "token-bucket" is listed twice: each check runs once');
    expect(problemsOf(() => loadConfig({ argv: ['--admission.policy=reject-all,token-bucket'] }))[0]).toMatch(/^admission\.policy: reject-all rejects everything: the checks after it would never run/);
    expect(problemsOf(() => loadConfig({ argv: ['--admission.policy=always-admit,busy-threshold'] }))[0]).toMatch(/^admission\.policy: always-admit admits everything/);
    expect(problemsOf(() => loadConfig({ file: yamlFile('admission:\n  policy: []\n') }))[0]).toMatch(/^admission\.policy: name at least one admission policy/);
  });

  it('names the key path of a bad number and of an unknown key', () => {
    expect(problemsOf(() => loadConfig({ env: { SLUICE_GATEWAY__PORT: 'eighty' } }))[0]).toMatch(/^gateway\.port: /);
    expect(problemsOf(() => loadConfig({ file: yamlFile('gateway:\n  prot: 1\n') }))[0]).toMatch(/^gateway: .*prot/);
    expect(problemsOf(() => loadConfig({ argv: ['--worker.instances=0'] }))[0]).toMatch(/^worker\.instances: /);
  });

  it('reports unreadable and malformed files', () => {
    expect(problemsOf(() => loadConfig({ file: '/nonexistent/sluice.yaml' }))[0]).toMatch(/cannot read config file/);
    expect(problemsOf(() => loadConfig({ file: yamlFile('gateway: [1,\n') }))[0]).toMatch(/not valid YAML/);
  });

  it('checks that the worker serves a configured model', () => {
    expect(problemsOf(() => loadConfig({ argv: ['--worker.model=llama'] }))[0]).toMatch(/^worker\.model: .*allowed: qwen3-14b/);
  });

  it('reads flowController in the Endpoint Picker shape, with Kubernetes quantities and Go durations', () => {
    const file = yamlFile(`
flowController:
  maxRequests: 1k
  maxBytes: 10Gi
  defaultRequestTTL: 90s
  priorityBands:
    - { priority: 4, maxRequests: 500, fairnessPolicyRef: round-robin-fairness-policy, orderingPolicyRef: slo-deadline-ordering-policy }
  saturationDetector: { type: concurrency-detector, parameters: { maxConcurrency: 8 } }
inferenceObjectives:
  - { name: premium, priority: 10 }
`);
    const config = loadConfig({ file });
    expect(config.flowController).toMatchObject({ enabled: true, maxRequests: 1_000, maxBytes: 10 * 2 ** 30, defaultRequestTTL: 90_000 });
    expect(config.flowController.priorityBands[0]).toEqual({
      priority: 4,
      maxRequests: 500,
      maxBytes: 0,
      fairnessPolicyRef: 'round-robin-fairness-policy',
      orderingPolicyRef: 'slo-deadline-ordering-policy',
    });
    expect(config.flowController.saturationDetector).toEqual({ type: 'concurrency-detector', parameters: { concurrencyMode: 'requests', maxConcurrency: 8, headroom: 0 } });
    expect(config.inferenceObjectives).toEqual([{ name: 'premium', priority: 10 }]);
    // Defaults: the Endpoint Picker's utilization detector, 60 s TTL, no limits.
    expect(loadConfig({}).flowController).toMatchObject({ maxRequests: 0, maxBytes: 0, defaultRequestTTL: 10_000, saturationDetector: { type: 'utilization-detector' } });
  });

  it('names the flow-control key that is wrong and what is allowed', () => {
    expect(problemsOf(() => loadConfig({ argv: ['--flowController.maxBytes=10gb'] }))[0]).toMatch(/^flowController\.maxBytes: .*"10gb" is not a quantity/);
    expect(problemsOf(() => loadConfig({ argv: ['--flowController.defaultRequestTTL=soon'] }))[0]).toMatch(/^flowController\.defaultRequestTTL: .*not a duration/);
    const ref = problemsOf(() => loadConfig({ argv: ['--flowController.priorityBands=[{priority: 1, fairnessPolicyRef: fair}]'] }))[0];
    expect(ref).toMatch(/^flowController\.priorityBands\[0\]\.fairnessPolicyRef: .*round-robin-fairness-policy/);
    expect(problemsOf(() => loadConfig({ argv: ['--flowController.priorityBands=[{priority: 1}, {priority: 1}]'] }))[0]).toMatch(/^flowController\.priorityBands\[1\]\.priority: priority 1 is listed twice/);
    const param = problemsOf(() => loadConfig({ argv: ['--flowController.saturationDetector={type: utilization-detector, parameters: {kvCacheUtilThreshold: 2}}'] }))[0];
    expect(param).toMatch(/^flowController\.saturationDetector\.parameters\.kvCacheUtilThreshold: /);
  });

  it('refuses a staleness threshold the workers’ snapshot interval would always exceed', () => {
    const [problem] = problemsOf(() => loadConfig({ argv: ['--worker.loadIntervalMs=500'] }));
    expect(problem).toMatch(/^flowController\.saturationDetector\.parameters\.metricsStalenessThreshold: 200 ms is too short for snapshots every 500 ms.*at least 1000 ms/);
    expect(() => loadConfig({ argv: ['--worker.loadIntervalMs=500', '--flowController.saturationDetector={type: utilization-detector, parameters: {metricsStalenessThreshold: 1s}}'] })).not.toThrow();
  });

  it('checks trusted header sources are address ranges and objective names are unique', () => {
    expect(loadConfig({}).gateway.trustedHeaderSources).toContain('127.0.0.0/8');
    expect(problemsOf(() => loadConfig({ argv: ['--gateway.trustedHeaderSources=[10.0.0.0/33]'] }))[0]).toMatch(/^gateway\.trustedHeaderSources\[0\]: must be an address range/);
    const twice = yamlFile('inferenceObjectives:\n  - { name: a, priority: 1 }\n  - { name: a, priority: 2 }\n');
    expect(problemsOf(() => loadConfig({ file: twice }))[0]).toMatch(/^inferenceObjectives\[1\]\.name: objective "a" is listed twice/);
  });

  it('accepts the example document in the README', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const example = /## Configure[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const config = loadConfig({ file: yamlFile(example!) });
    expect(config.flowController.priorityBands.map((b) => b.priority)).toEqual([3, -2]);
  });
});
