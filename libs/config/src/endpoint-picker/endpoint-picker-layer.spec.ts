import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../command-line.js';
import { ConfigError } from '../config.error.js';
import { loadConfig } from '../load-config.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/endpoint-picker/${name}`, import.meta.url));
const HELM_DEFAULT = fixture('gaie-helm-default.epp.yaml');
const OBJECTS = fixture('gaie-inference-objects.yaml');

function file(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'sluice-epp-')), name);
  writeFileSync(path, text);
  return path;
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

describe('the Endpoint Picker layer of loadConfig', () => {
  it('--epp-config sets the router and flow control from the file', () => {
    const config = loadConfig({ argv: ['--epp-config', HELM_DEFAULT] });
    expect(config.router.policy).toBe('weighted');
    expect(config.router.policies.weighted).toEqual({ weights: { 'prefix-affinity': 3, 'queue-depth': 2, 'kv-utilization': 2 } });
    expect(config.flowController.enabled).toBe(false);
    expect(config.eppConfig).toBe(HELM_DEFAULT);
  });

  it('is read from the eppConfig key of sluice.yaml and from SLUICE_EPP_CONFIG too', () => {
    expect(loadConfig({ file: file('sluice.yaml', `eppConfig: ${HELM_DEFAULT}\n`) }).router.policy).toBe('weighted');
    expect(loadConfig({ env: { SLUICE_EPP_CONFIG: HELM_DEFAULT } }).router.policy).toBe('weighted');
  });

  it('sits under env and flags: a flag overrides what the EPP config set', () => {
    const config = loadConfig({ argv: ['--epp-config', HELM_DEFAULT, '--flowController.enabled=true'], env: { SLUICE_ROUTER__POLICY: 'least-loaded' } });
    expect(config.flowController.enabled).toBe(true);
    expect(config.router.policy).toBe('least-loaded');
  });

  it('refuses a key set both by sluice.yaml and by the EPP config, naming both values', () => {
    const sluiceYaml = file('sluice.yaml', 'router:\n  policy: round-robin\n');
    expect(problemsOf(() => loadConfig({ file: sluiceYaml, argv: ['--epp-config', HELM_DEFAULT] }))).toEqual([
      'router.policy: set by sluice.yaml ("round-robin") and by the Endpoint Picker\'s files ("weighted"); keep one',
    ]);
  });

  it('fails start-up naming the file and the YAML path of what it cannot honour', () => {
    const problems = problemsOf(() => loadConfig({ argv: ['--epp-config', fixture('gaie-integration-default.epp.yaml')] }));
    expect(problems).toContain(`eppConfig ${fixture('gaie-integration-default.epp.yaml')}: plugins[3].type: "lora-affinity-scorer" is not supported: sluice has no LoRA adapters`);
  });

  it('names a file it cannot read', () => {
    expect(problemsOf(() => loadConfig({ argv: ['--epp-config', '/nonexistent/epp.yaml'] }))[0]).toMatch(/^eppConfig: cannot read \/nonexistent\/epp\.yaml: /);
  });

  it("--inference-objectives adds the objectives after sluice.yaml's, with the pool's name and port", () => {
    const sluiceYaml = file('sluice.yaml', 'inferenceObjectives:\n  - { name: interactive, priority: 5 }\n');
    const config = loadConfig({ file: sluiceYaml, argv: ['--inference-objectives', OBJECTS] });
    expect(config.inferencePool).toBe('vllm-qwen3-32b');
    expect(config.worker.port).toBe(8000);
    expect(config.inferenceObjectives.map((o) => o.name)).toEqual(['interactive', 'small-segment-lora', 'base-model', 'base-model-cpu']);
  });

  it('hands both files on to the services as absolute paths', () => {
    const line = parseCommandLine(['--epp-config', 'epp.yaml', '--inference-objectives=objs.yaml', '--router.seed=1'], {}, '/work/x');
    expect(line.problems).toEqual([]);
    expect(line.configArgs).toEqual(['--epp-config', '/work/x/epp.yaml', '--inference-objectives', '/work/x/objs.yaml', '--router.seed=1']);
    expect(parseCommandLine(line.configArgs).files).toEqual(line.files);
  });
});
