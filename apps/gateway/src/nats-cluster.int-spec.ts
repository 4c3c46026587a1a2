import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_DETECTION_ARGS, FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, streamCompletion, type StreamedAnswer } from '@sluice/testing';
import { tokenText } from '@sluice/openai';

/**
 * The cluster on a 3-node NATS cluster (`nats.clusterSize: 3`): every service is given the three
 * URLs, and one node is stopped for good under a steady streaming load. Its clients reconnect to
 * the others; what was in flight on its connections is resolved by the fault-tolerance rules
 * (docs/behaviour.md §6): no request may fail, and every stream stays whole.
 */
/** Every stage notices a lost peer in about a second; the gateway's heartbeat timeout stays at 3 s here. */
const FAST_DETECTION = [...FAST_DETECTION_ARGS, '--gateway.heartbeatTimeoutMs=3000'];

const PROMPT = 'Tell me about sluice gates and how they control the flow of water in a canal.';

describe('one node of a 3-node NATS cluster lost under load', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      configArgs: [...FREE_PORT_ARGS, ...FAST_DETECTION, '--nats.clusterSize=3', '--worker.processes=2', '--worker.instances=1', '--worker.timeScale=4'],
    });
  });
  afterAll(() => cluster?.stop());

  it('gives every service the three nodes, and fails no request when one of them goes', async () => {
    const nodes = cluster.natsNodes();
    expect(nodes).toHaveLength(3);
    expect(cluster.natsUrl).toBe(nodes.map((n) => n.url).join(','));

    const maxTokens = 24;
    const answers: Promise<StreamedAnswer>[] = [];
    let sending = true;
    const load = (async () => {
      while (sending) {
        answers.push(streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: maxTokens }));
        await new Promise((resolve) => setTimeout(resolve, 40));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Clients pick a node at random: the one lost is the one that holds the most connections.
    const connections = await Promise.all(nodes.map(async (n) => ((await (await fetch(`${n.monitorUrl}/varz`)).json()) as { connections: number }).connections));
    const busiest = connections.indexOf(Math.max(...connections));
    expect(connections[busiest]).toBeGreaterThanOrEqual(2);
    await cluster.stopNatsNode(busiest);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    sending = false;
    await load;

    const settled = await Promise.all(answers);
    const failed = settled.filter((a) => a.status !== 200 || a.errorCode !== undefined).map((a) => `${a.status} ${a.errorCode ?? ''}: ${a.errorMessage ?? ''}`);
    expect(failed).toEqual([]);
    for (const answer of settled) {
      expect(answer.pieces).toEqual(Array.from({ length: maxTokens }, (_, i) => tokenText(i)));
    }
    expect(settled.length).toBeGreaterThan(100);
    // The gateway's books: every request it received has one outcome, none left in flight.
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total'));
    // Every service still serves: a request after the loss goes through the whole path.
    const after = await streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: 4 });
    expect(after.status).toBe(200);
    expect(after.pieces).toHaveLength(4);
  });
});
