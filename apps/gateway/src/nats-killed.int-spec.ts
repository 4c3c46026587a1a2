import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import { eventually, metricSum, metricValue, postCompletion, streamCompletion, type StreamedAnswer } from '@sluice/testing';
import { tokenText } from '@sluice/openai';

/**
 * The nats-server killed with SIGKILL under 30 open streams (docs/behaviour.md §6, "The bus going
 * away"), on real processes. Back on the same port a second later, the gateway re-submits what it
 * had open: each stream completes whole or ends with an error event, within seconds, never at the
 * request deadline (60 s). Kept down (through the launcher, which otherwise restarts it): after one heartbeat timeout every open stream ends with
 * `stage_lost`, and so does every new request until the bus returns.
 */
const PROMPT = 'Tell me about sluice gates and how they control the flow of water in a canal.';
const STREAMS = 30;
const MAX_TOKENS = 200;

/** The pid of the process listening on the cluster's NATS port (the launcher restarts it under a new one). */
function natsPidOf(cluster: LocalCluster): number {
  const port = new URL(cluster.natsUrl).port;
  const line = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(line)?.[1];
  if (pid === undefined) throw new Error(`nothing listens on the NATS port ${port}: ${line}`);
  return Number(pid);
}

describe('the nats-server killed with SIGKILL', () => {
  let cluster: LocalCluster;
  beforeAll(async () => {
    cluster = await startLocalCluster({
      rootDir: REPO_ROOT,
      readyTimeoutMs: 90_000,
      configArgs: [...FREE_PORT_ARGS, '--worker.instances=4', '--gateway.heartbeatTimeoutMs=2000'],
    });
  });
  afterAll(() => cluster?.stop());

  async function openStreams(): Promise<Promise<StreamedAnswer>[]> {
    let started = 0;
    const streams: Promise<StreamedAnswer>[] = [];
    await new Promise<void>((resolve) => {
      for (let i = 0; i < STREAMS; i++) streams.push(streamCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: MAX_TOKENS }, () => ++started === STREAMS && resolve()));
    });
    return streams;
  }

  it('back on its port a second later: every stream completes whole or ends with a reason within seconds, and new requests are served', async () => {
    const streams = await openStreams();
    const killedAt = Date.now();
    process.kill(natsPidOf(cluster), 'SIGKILL');
    await cluster.restartNats(1_000);
    const backAt = Date.now();
    await eventually(async () => (await postCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: 4 })).status === 200, 10_000, 'a request served after NATS is back');
    const servedAfterMs = Date.now() - backAt;
    const answers = await Promise.all(streams);
    const endedAfterMs = Date.now() - killedAt;
    const whole = answers.filter((a) => a.status === 200 && a.errorCode === undefined);
    for (const answer of whole) expect(answer.pieces).toEqual(Array.from({ length: MAX_TOKENS }, (_, i) => tokenText(i)));
    for (const answer of answers.filter((a) => !whole.includes(a))) expect(answer.errorCode).toBeDefined();
    expect(endedAfterMs).toBeLessThan(30_000); // the request deadline is 60 s
    await eventually(async () => (await metricValue(cluster.gatewayUrl, 'sluice_requests_in_flight')) === 0, 10_000, 'nothing in flight');
    expect(await metricSum(cluster.gatewayUrl, 'sluice_requests_total')).toBe(await metricSum(cluster.gatewayUrl, 'sluice_requests_received_total'));
    console.log(`NATS kill -9, back after 1 s: served again ${servedAfterMs} ms after it was back; ${whole.length}/${STREAMS} streams whole, all ended ${endedAfterMs} ms after the kill`);
  });

  it('down for longer than a heartbeat timeout: the open streams and new requests end with stage_lost after a heartbeat timeout, not at the deadline', async () => {
    const streams = await openStreams();
    const killedAt = Date.now();
    // sluice up's launcher restarts a killed nats-server within a second: held down for 20 s
    // through the launcher instead, the bus stays away past the gateway's heartbeat timeout.
    const back = cluster.restartNats(20_000);
    const answers = await Promise.all(streams);
    const endedAfterMs = Date.now() - killedAt;
    expect(answers.map((a) => a.errorCode)).toEqual(Array.from({ length: STREAMS }, () => 'stage_lost'));
    const late = await postCompletion(cluster.gatewayUrl, { prompt: PROMPT, max_tokens: 4 });
    expect(late.status).toBe(503);
    expect(((await late.json()) as { error: { code: string } }).error.code).toBe('stage_lost');
    expect(endedAfterMs).toBeLessThan(15_000);
    console.log(`NATS down for 20 s: ${STREAMS} streams ended with stage_lost ${endedAfterMs} ms after it went`);
    // Everything is checked: the cluster stops now, which cancels the rest of the hold (its last test).
    await cluster.stop();
    await back;
  });
});
