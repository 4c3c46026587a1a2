import { describe, expect, it } from 'vitest';
import { Registry } from '@sluice/telemetry';
import { AdmissionMetrics } from './admission.metrics.js';

/** The admission page after a policy is shown and a few decisions are counted. */
async function page(): Promise<string> {
  const registry = new Registry();
  const metrics = new AdmissionMetrics(registry);
  metrics.showPolicy({ policy: 'token-bucket', params: { capacity: 10, refill: { perSecond: 5 } } }, false);
  metrics.bucketLevel.set(3.5);
  metrics.decision('token-bucket', 'admit', 'admitted', 'standard', 'qwen3-14b');
  metrics.decision('token-bucket', 'admit', 'admitted', 'standard', 'qwen3-14b');
  metrics.decision('token-bucket', 'reject', 'insufficient_tokens', 'batch', 'qwen3-14b');
  metrics.busyRejection('qwen3-14b');
  return registry.metrics();
}

describe('AdmissionMetrics', () => {
  it('writes each decision, busy rejection and the bucket level under the names, labels and help docs/metrics.md gives', async () => {
    const text = await page();
    expect(text).toContain('# HELP sluice_admission_decisions_total Admission decisions by policy, decision, reason and SLO class.\n# TYPE sluice_admission_decisions_total counter');
    expect(text).toContain('sluice_admission_decisions_total{policy="token-bucket",decision="admit",reason="admitted",slo_class="standard"} 2');
    expect(text).toContain('sluice_admission_decisions_total{policy="token-bucket",decision="reject",reason="insufficient_tokens",slo_class="batch"} 1');
    expect(text).toContain('# TYPE dynamo_tasks_rejected_total counter\ndynamo_tasks_rejected_total{model="qwen3-14b"} 1');
    // Every decision is a task issued, admitted or not: Dynamo's rejection rate is rejected / issued.
    expect(text).toContain('# TYPE dynamo_tasks_issued_total counter\ndynamo_tasks_issued_total{model="qwen3-14b"} 3');
    expect(text).toContain('# TYPE sluice_admission_token_bucket_level gauge\nsluice_admission_token_bucket_level 3.5');
    expect(text).toContain('sluice_admission_policy_param{policy="token-bucket",param="refill.perSecond"} 5');
    expect(text).toContain('sluice_admission_policy_info{policy="token-bucket",position="1"} 1');
  });

  it('shows each check of a chain with its position and its own parameters', async () => {
    const registry = new Registry();
    const metrics = new AdmissionMetrics(registry);
    metrics.showPolicy({ policy: 'busy-threshold,token-bucket', params: { 'busy-threshold': { activeDecodeBlocksThreshold: 0.8 }, 'token-bucket': { capacity: 600 } } }, true);
    const text = await registry.metrics();
    expect(text).toContain('sluice_admission_policy_info{policy="busy-threshold",position="1"} 1');
    expect(text).toContain('sluice_admission_policy_info{policy="token-bucket",position="2"} 1');
    expect(text).toContain('sluice_admission_policy_param{policy="busy-threshold",param="activeDecodeBlocksThreshold"} 0.8');
    expect(text).toContain('sluice_admission_policy_param{policy="token-bucket",param="capacity"} 600');
    expect(text).toContain('sluice_admission_policy_changes_total{policy="busy-threshold,token-bucket"} 1');
  });

  it('shows the bucket level at 0 before the first decision, and no decision series before one is made', async () => {
    const registry = new Registry();
    new AdmissionMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('sluice_admission_token_bucket_level 0');
    expect(text).not.toMatch(/^sluice_admission_decisions_total\{/m);
    expect(text).not.toMatch(/^dynamo_tasks_rejected_total\{/m);
    expect(text).not.toMatch(/^dynamo_tasks_issued_total\{/m);
  });

  it('shows the Dynamo task series of every configured model at 0 before the first request', async () => {
    const registry = new Registry();
    new AdmissionMetrics(registry, ['qwen3-14b']);
    const text = await registry.metrics();
    expect(text).toContain('dynamo_tasks_issued_total{model="qwen3-14b"} 0');
    expect(text).toContain('dynamo_tasks_rejected_total{model="qwen3-14b"} 0');
  });
});
