import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, streamCompletion, type StreamedAnswer } from '@sluice/testing';
import { tokenText } from '@sluice/openai';

/**
 * Two gateways on one cluster (`gateway.replicas: 2`): each owns the requests it received (their
 * inboxes, deadlines and outcomes), so each counts only its own, and losing one loses only its
 * own open streams (docs/scaling.md).
 */
const PER_GATEWAY = 8;
const TOKENS = 24;
/** Long enough that both gateways still have streams open when one is killed. */
const LONG = 160;

describe('two gateways', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, '--gateway.replicas=2', '--worker.timeScale=4'] });
  });
  afterAll(() => cluster?.stop());

  it('each serves and counts its own requests, and a lost gateway takes only its own streams with it', async () => {
    expect(cluster.gatewayUrls).toHaveLength(2);
    const [first, second] = cluster.gatewayUrls as [string, string];
    const stream = (url: string, i: number) => streamCompletion(url, { prompt: `gateway stream ${i}`, max_tokens: TOKENS });

    // Both serve, each its own.
    const warm = await Promise.all([...Array.from({ length: PER_GATEWAY }, (_, i) => stream(first, i)), ...Array.from({ length: PER_GATEWAY }, (_, i) => stream(second, i))]);
    expect(warm.map((a) => a.status)).toEqual(Array.from({ length: 2 * PER_GATEWAY }, () => 200));
    for (const url of [first, second]) expect(await metricSum(url, 'sluice_requests_total', 'reason="ok"')).toBe(PER_GATEWAY);

    // The second gateway is killed while both have streams open: the first's all finish whole.
    const onFirst: Promise<StreamedAnswer>[] = [];
    const onSecond: Promise<unknown>[] = [];
    let firstPieces = 0;
    let secondPieces = 0;
    for (let i = 0; i < PER_GATEWAY; i++) {
      onFirst.push(streamCompletion(first, { prompt: `survivor ${i}`, max_tokens: LONG }, () => (firstPieces += 1)));
      onSecond.push(streamCompletion(second, { prompt: `lost ${i}`, max_tokens: LONG }, () => (secondPieces += 1)).catch((error: unknown) => error));
    }
    await eventually(() => firstPieces === PER_GATEWAY && secondPieces === PER_GATEWAY, 10_000, 'every stream on both gateways has begun');
    cluster.signal('gateway-1', 'SIGKILL');
    const survivors = await Promise.all(onFirst);
    for (const answer of survivors) {
      expect(answer.status).toBe(200);
      expect(answer.pieces).toEqual(Array.from({ length: LONG }, (_, i) => tokenText(i)));
    }
    // The killed gateway's clients lost their connections mid-stream: none got a whole answer.
    const lost = await Promise.all(onSecond);
    expect(lost.filter((a) => !(a instanceof Error) && (a as StreamedAnswer).pieces.length === LONG)).toEqual([]);
    await eventually(async () => (await metricSum(first, 'sluice_requests_in_flight')) === 0, 10_000, 'the first gateway has nothing in flight');
    expect(await metricSum(first, 'sluice_requests_total')).toBe(2 * PER_GATEWAY);
    expect(await metricSum(first, 'sluice_requests_received_total')).toBe(2 * PER_GATEWAY);
  });
});
