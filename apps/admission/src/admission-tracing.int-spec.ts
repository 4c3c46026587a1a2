import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '@sluice/launcher';
import { postCompletion, runSluice, startTracedCluster, type OtlpReceiver, type TracedCluster, natsArgsAs } from '@sluice/testing';

/** Each admission decision is an `admission.decide` span carrying the inputs that drove it. */
let traced: TracedCluster;
let receiver: OtlpReceiver;
let cluster: LocalCluster;

beforeAll(async () => {
  traced = await startTracedCluster([
    '--admission.policy=token-bucket',
    '--admission.policies.token-bucket.capacity=600',
    '--admission.policies.token-bucket.refillRate=1',
    '--worker.instances=1',
    '--worker.timeScale=20',
  ]);
  ({ receiver, cluster } = traced);
});

afterAll(() => traced?.stop());

let seed = 0;
async function send(promptTokens: number, sloClass = 'standard'): Promise<string> {
  seed++;
  const prompt = Array.from({ length: promptTokens }, (_, i) => (seed * 7919 + i) % 128_000);
  const res = await postCompletion(cluster.gatewayUrl, { prompt, max_tokens: 1 }, { headers: { 'x-sluice-slo-class': sloClass } });
  const body = (await res.json()) as { id?: string };
  return body.id ?? `status ${res.status}`;
}

/** The admission.decide spans, oldest first, once `count` of them have arrived. */
async function decisions(count: number) {
  await receiver.waitFor((spans) => spans.filter((s) => s.name === 'admission.decide').length >= count);
  return receiver.spans.filter((s) => s.name === 'admission.decide').map((s) => s.attributes);
}

describe('admission.decide spans', () => {
  it('carry the policy, the decision, the reason and the inputs of each policy', async () => {
    await send(512);
    await send(512);
    const [admitted, rejected] = await decisions(2);
    expect(admitted).toMatchObject({
      'sluice.admission.policy': 'token-bucket',
      'sluice.admission.decision': 'admit',
      'sluice.admission.reason': 'admitted',
      'sluice.slo_class': 'standard',
      'sluice.admission.cost': 512,
      'sluice.admission.bucket_level_before': 600,
      'sluice.admission.bucket_level_after': 88,
    });
    expect(rejected).toMatchObject({ 'sluice.admission.decision': 'reject', 'sluice.admission.reason': 'insufficient_tokens' });
    expect(rejected!['sluice.admission.bucket_level_before']).toBeLessThan(512);

    expect((await runSluice(['admission', 'set', 'slo-predictive', ...natsArgsAs(cluster, 'control')])).code).toBe(0);
    await send(64, 'critical');
    const predicted = (await decisions(3))[2]!;
    expect(predicted).toMatchObject({ 'sluice.admission.policy': 'slo-predictive', 'sluice.admission.decision': 'admit', 'sluice.slo_class': 'critical', 'sluice.admission.instances': 1 });
    // An idle instance: β0 + β1·64 of the qwen3-14b profile (docs/behaviour.md §1), in real time at
    // timeScale 20 (÷ 20), against the critical budget.
    expect(predicted['sluice.admission.predicted_ttft_us']).toBeCloseTo((13578.186662538783 + 39.44465647189146 * 64) / 20, 3);
    expect(predicted['sluice.admission.coefficients']).toBe('profile:qwen3-14b');
    expect(predicted['sluice.admission.budget_us']).toBe(150_000);

    expect((await runSluice(['admission', 'set', 'busy-threshold', 'activeDecodeBlocksThreshold=0.9', ...natsArgsAs(cluster, 'control')])).code).toBe(0);
    await send(16);
    expect((await decisions(4))[3]).toMatchObject({
      'sluice.admission.policy': 'busy-threshold',
      'sluice.admission.busy_workers': 0,
      'sluice.admission.total_workers': 1,
      'sluice.admission.active_decode_blocks_threshold': 0.9,
    });
  });

  it('with a chain: the check that decided and its inputs, the chain, and one admission.check event per check that ran', async () => {
    const set = ['admission', 'set', 'busy-threshold,token-bucket', 'token-bucket.capacity=600', ...natsArgsAs(cluster, 'control')];
    expect((await runSluice(set)).code).toBe(0);
    const before = receiver.spans.filter((s) => s.name === 'admission.decide').length;
    await send(512);
    await send(512);
    await receiver.waitFor((spans) => spans.filter((s) => s.name === 'admission.decide').length >= before + 2);
    const [admitted, rejected] = receiver.spans.filter((s) => s.name === 'admission.decide').slice(before);
    expect(admitted!.attributes).toMatchObject({
      'sluice.admission.policy': 'token-bucket',
      'sluice.admission.chain': 'busy-threshold,token-bucket',
      'sluice.admission.decision': 'admit',
      'sluice.admission.bucket_level_after': 88,
    });
    const checks = (span: typeof admitted) => span!.events.filter((e) => e.name === 'admission.check').map((e) => e.attributes);
    expect(checks(admitted)).toEqual([
      expect.objectContaining({ 'sluice.admission.check': 'busy-threshold', 'sluice.admission.decision': 'admit', 'sluice.admission.total_workers': 1 }),
      expect.objectContaining({ 'sluice.admission.check': 'token-bucket', 'sluice.admission.decision': 'admit', 'sluice.admission.cost': 512 }),
    ]);
    expect(rejected!.attributes).toMatchObject({ 'sluice.admission.policy': 'token-bucket', 'sluice.admission.reason': 'insufficient_tokens' });
    expect(checks(rejected).map((c) => c['sluice.admission.decision'])).toEqual(['admit', 'reject']);
  });
});
