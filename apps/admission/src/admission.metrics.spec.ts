import { describe, expect, it } from 'vitest';
import { Registry } from '@sluice/telemetry';
import { AdmissionMetrics } from './admission.metrics.js';

/** The admission page after a policy is shown and a few decisions are counted. */
async function page(): Promise<string> {
  const registry = new Registry();
  const metrics = new AdmissionMetrics(registry);
  metrics.showPolicy({ policy: 'token-bucket', params: { capacity: 10, refill: { perSecond: 5 } } }, false);
  metrics.bucketLevel.set(3.5);
  metrics.decision('token-bucket', 'admit', 'admitted', 'standard');
  metrics.decision('token-bucket', 'admit', 'admitted', 'standard');
  metrics.decision('token-bucket', 'reject', 'insufficient_tokens', 'batch');
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
    expect(text).toContain('# TYPE sluice_admission_token_bucket_level gauge\nsluice_admission_token_bucket_level 3.5');
    expect(text).toContain('sluice_admission_policy_param{policy="token-bucket",param="refill.perSecond"} 5');
  });

  it('shows the bucket level at 0 before the first decision, and no decision series before one is made', async () => {
    const registry = new Registry();
    new AdmissionMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('sluice_admission_token_bucket_level 0');
    expect(text).not.toMatch(/^sluice_admission_decisions_total\{/m);
    expect(text).not.toMatch(/^dynamo_tasks_rejected_total\{/m);
  });
});
