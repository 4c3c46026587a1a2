import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalCluster } from '@sluice/launcher';
import { eventually, metricValue, postCompletion, startTracedCluster, type OtlpReceiver, type TracedCluster } from '@sluice/testing';

/**
 * Flow control's queue report reaches the live admission service: with one request in flight at a
 * time (the concurrency detector), standard requests wait in flow control, and a later standard
 * request's `admission.decide` span counts them ahead of it, from a report of known age.
 */
let traced: TracedCluster;
let receiver: OtlpReceiver;
let cluster: LocalCluster;

beforeAll(async () => {
  traced = await startTracedCluster([
    '--admission.policy=slo-predictive',
    '--worker.instances=1',
    '--worker.timeScale=10',
    '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 1}}',
    '--flowController.queueReportIntervalMs=20',
  ]);
  ({ receiver, cluster } = traced);
});

afterAll(() => traced?.stop());

let seed = 0;
/** A standard request of fresh tokens; the answer is not awaited here (it waits its turn in flow control). */
function send(maxTokens: number): Promise<Response> {
  seed++;
  const prompt = Array.from({ length: 128 }, (_, i) => (seed * 7919 + i) % 128_000);
  return postCompletion(cluster.gatewayUrl, { prompt, max_tokens: maxTokens }, { headers: { 'x-sluice-slo-class': 'standard' } });
}

type Attributes = Record<string, unknown>;
const decisions = (): Attributes[] => receiver.spans.filter((s) => s.name === 'admission.decide').map((s) => s.attributes as Attributes);

describe('admission hears flow control’s queue report', () => {
  it('counts the standard requests waiting in flow control ahead of a new standard one, with the report’s age', async () => {
    // One long request holds the only slot; the next ones queue in flow control behind it (seconds each).
    const sent = Array.from({ length: 4 }, () => send(1_000));
    const flow = cluster.services.find((s) => s.name === 'flow-controller')!.url;
    await eventually(async () => (await metricValue(flow, 'dynamo_queued_requests', 'model="qwen3-14b"')) >= 2, 15_000, 'requests queued in flow control');
    // A probe decided now sees the queue once a report (every 20 ms) has shown it. The metric above
    // moves at the enqueue itself, up to one report interval earlier, so a probe sent at once can
    // reach admission first: probes go one at a time until one is decided on the queue.
    const seenAhead = () => decisions().find((a) => (a['sluice.admission.flow_queued_ahead'] as number) >= 1);
    for (let probes = 1; probes <= 5 && seenAhead() === undefined; probes++) {
      sent.push(send(1));
      await receiver.waitFor(() => decisions().length >= 4 + probes);
    }
    const seen = seenAhead();
    expect(seen, `flow_queued_ahead of each decision: ${decisions().map((a) => a['sluice.admission.flow_queued_ahead']).join()}`).toBeDefined();
    const age = seen!['sluice.admission.queue_report_age_us'] as number;
    expect(age).toBeGreaterThanOrEqual(0);
    // A report older than the admission heartbeat timeout would not count at all.
    expect(age).toBeLessThan(3_000_000);
    expect(seen!['sluice.admission.queue_ahead']).toBeGreaterThanOrEqual(seen!['sluice.admission.flow_queued_ahead'] as number);
    // The profile's one-token decode step, β0 + β2, at timeScale 10.
    expect(seen!['sluice.admission.avg_step_time_us']).toBe(Math.trunc((13578.186662538783 + 27.3227753326911) / 10));
    for (const res of await Promise.all(sent)) expect(res.status).toBe(200);
  });
});
