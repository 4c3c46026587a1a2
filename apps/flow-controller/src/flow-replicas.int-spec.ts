import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHeaders } from '@sluice/contracts';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, postCompletion, reportedCompletion, type ReportedAnswer } from '@sluice/testing';

/**
 * Two flow controllers behind one queue group, each with its own queues (as the Endpoint Picker's
 * per-replica flow control): strict priority holds within each replica, not across them
 * (docs/scaling.md). Each replica's concurrency detector counts its own dispatches, with room for
 * one, so "saturated" is exact per replica: one long stream occupies each, the test queues batch
 * requests then critical ones, and lets the occupiers go.
 */
const QUEUE_SIZE = 'inference_extension_flow_control_queue_size';
const DISPATCHED = 'sluice_flow_dispatched_total';

let nextToken = 1;
const prompt = () => Array.from({ length: 16 }, () => nextToken++ % 128_000);
const slo = (sloClass: string) => ({ [httpHeaders.sloClass]: sloClass });

/** A long streaming request that holds its flow controller's one slot until released. */
function occupier(url: string): { started: Promise<Response>; release: () => void } {
  const abort = new AbortController();
  const started = postCompletion(url, { prompt: prompt(), max_tokens: 5_000, stream: true }, { signal: abort.signal });
  started.catch(() => undefined);
  return { started, release: () => abort.abort() };
}

describe('two flow-controller replicas', () => {
  let cluster: LocalCluster;
  let flows: string[];
  const sum = async (name: string) => (await Promise.all(flows.map((f) => metricSum(f, name)))).reduce((a, b) => a + b, 0);

  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [
        ...FREE_PORT_ARGS,
        '--flowController.replicas=2',
        '--flowController.saturationDetector.type=concurrency-detector',
        '--flowController.saturationDetector.parameters.maxConcurrency=1',
        '--worker.instances=1',
        '--worker.timeScale=10',
      ],
    });
    flows = cluster.services.filter((s) => s.name === 'flow-controller').map((s) => s.url);
  });
  afterAll(() => cluster?.stop());

  it('keep strict priority within each replica: every critical request it queued is served before its batch ones', async () => {
    expect(flows).toHaveLength(2);
    // Occupy both replicas. The queue group picks the replica, so an occupier that lands on one
    // already occupied waits in its queue: it is withdrawn (its client leaves) and another tried.
    const holding: ReturnType<typeof occupier>[] = [];
    while (holding.length < 2) {
      const before = await sum(DISPATCHED);
      const next = occupier(cluster.gatewayUrl);
      await eventually(async () => (await sum(DISPATCHED)) > before || (await sum(QUEUE_SIZE)) > 0, 5_000, 'the occupier dispatched or queued');
      if ((await sum(QUEUE_SIZE)) > 0) {
        next.release();
        await eventually(async () => (await sum(QUEUE_SIZE)) === 0, 5_000, 'the surplus occupier withdrawn');
      } else {
        holding.push(next);
      }
    }
    expect(await Promise.all(flows.map((f) => metricSum(f, DISPATCHED)))).toEqual([1, 1]);

    const answers: { tag: string; answer: ReportedAnswer }[] = [];
    const send = (tag: string) => reportedCompletion(cluster.gatewayUrl, { prompt: prompt(), max_tokens: 3 }, slo(tag)).then((answer) => answers.push({ tag, answer }));
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < 6; i++) sent.push(send('batch'));
    await eventually(async () => (await sum(QUEUE_SIZE)) === 6, 5_000, 'six batch requests queued');
    for (let i = 0; i < 6; i++) sent.push(send('critical'));
    await eventually(async () => (await sum(QUEUE_SIZE)) === 12, 5_000, 'twelve requests queued');
    for (const hold of holding) hold.release();
    await Promise.all(sent);

    expect(answers.map((a) => a.answer.status)).toEqual(Array.from({ length: 12 }, () => 200));
    // `answers` is in completion order; each replica released one request at a time.
    const byReplica = new Map<string, string[]>();
    for (const { tag, answer } of answers) {
      const flow = answer.sluice!.holders.flow!;
      byReplica.set(flow, [...(byReplica.get(flow) ?? []), tag]);
    }
    for (const [replica, tags] of byReplica) {
      const critical = tags.filter((t) => t === 'critical').length;
      const expected = [...Array.from({ length: critical }, () => 'critical'), ...Array.from({ length: tags.length - critical }, () => 'batch')];
      expect(tags, `the order ${replica} served its requests in`).toEqual(expected);
    }
  });
});
