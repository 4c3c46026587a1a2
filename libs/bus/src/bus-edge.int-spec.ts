import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { EXAMPLE_INFERENCE_REQUEST, InferenceRequestSchema, MAX_BUS_MESSAGE_BYTES, busHeaders, fastValidatorOf, type InferenceRequest } from '@sluice/contracts';
import { freePort, natsAnswers } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from './bus.js';

/**
 * The receiving edge against a real nats-server whose max_payload is raised to 4 MiB, the one case
 * where a message over MAX_BUS_MESSAGE_BYTES reaches a subscriber at all (on the default 1 MiB the
 * server refuses it from the publisher): it is refused before it is parsed, and counted.
 */

const BINARY = ['/usr/sbin/nats-server', '/usr/local/bin/nats-server', '/usr/bin/nats-server'].find((p) => existsSync(p));

let server: ChildProcess;
let bus: Bus;
let peer: NatsConnection;

beforeAll(async () => {
  if (!BINARY) return;
  const port = await freePort();
  const config = join(mkdtempSync(join(tmpdir(), 'sluice-edge-')), 'nats.conf');
  writeFileSync(config, 'max_payload: 4MB\n');
  server = spawn(BINARY, ['-c', config, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  while (!(await natsAnswers('127.0.0.1', port))) {
    if (Date.now() > until) throw new Error('nats-server did not answer');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = `nats://127.0.0.1:${port}`;
  bus = await Bus.connect({ url, name: 'edge-under-test', ackTimeoutMs: 2_000, log: () => undefined, answerFaultControl: false });
  peer = await connect({ servers: url, name: 'hostile-peer' });
});

afterAll(async () => {
  await peer?.close();
  await bus?.drain();
  server?.kill();
});

describe.skipIf(!BINARY)('the receiving edge', () => {
  it('refuses what is oversized, malformed or off-schema, counts each by subscription and reason, and hands on only the rest', async () => {
    const seen: unknown[] = [];
    bus.listen('edge.events.*', z.object({ n: z.number() }), ({ data }) => void seen.push(data));
    bus.serve('edge.handoff', z.object({ n: z.number() }), ({ data }) => void seen.push(data));
    await bus.flush();

    const oversized = JSON.stringify({ n: 1, pad: 'x'.repeat(MAX_BUS_MESSAGE_BYTES) });
    for (const [subject, payload] of [
      ['edge.events.a', oversized],
      ['edge.events.b', '{"n":'],
      ['edge.events.c', '{"n":"one"}'],
      ['edge.events.d', '{"n":2}'],
    ] as const) {
      peer.publish(subject, payload);
    }
    const nack = await peer.request('edge.handoff', oversized, { timeout: 2_000 });
    expect(nack.json()).toEqual({ ok: false, message: `${oversized.length} bytes, over the ${MAX_BUS_MESSAGE_BYTES} a message may have` });
    const ack = await peer.request('edge.handoff', '{"n":3}', { timeout: 2_000 });
    expect(ack.string()).toBe('{"ok":true}');

    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([{ n: 2 }, { n: 3 }]);
    expect(bus.rejections.rejections()).toEqual([
      { subject: 'edge.events.*', reason: 'oversized', count: 1 },
      { subject: 'edge.events.*', reason: 'malformed', count: 1 },
      { subject: 'edge.events.*', reason: 'schema', count: 1 },
      { subject: 'edge.handoff', reason: 'oversized', count: 1 },
    ]);
  });

  it("hands on a hot message its fast validator takes as it came, and zod's output or refusal for any other", async () => {
    const served: InferenceRequest[] = [];
    bus.serve('edge.requests', InferenceRequestSchema, ({ data }) => void served.push(data));
    await bus.flush();
    const request = { ...EXAMPLE_INFERENCE_REQUEST, bodyBytes: 120, timings: { gatewayInMs: 0.5 } };
    const { bodyBytes: _bodyBytes, timings: _timings, ...withoutDefaulted } = request;
    const send = async (payload: unknown) => (await peer.request('edge.requests', JSON.stringify(payload), { timeout: 2_000 })).json<{ ok: boolean; message?: string }>();

    expect(fastValidatorOf(InferenceRequestSchema)?.(request)).toBe(true);
    expect(await send(request)).toEqual({ ok: true });
    // Not for the fast path: zod fills the defaults, strips the unknown key, and words the refusal.
    expect(await send(withoutDefaulted)).toEqual({ ok: true });
    expect(await send({ ...request, extra: 1 })).toEqual({ ok: true });
    const refused = await send({ ...request, attempt: -1 });
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/^attempt: /);

    await new Promise((resolve) => setImmediate(resolve));
    expect(served).toEqual([request, { ...withoutDefaulted, bodyBytes: 0, timings: {} }, request]);
  });

  it('counts a handler that throws, and the subscription goes on', async () => {
    const seen: number[] = [];
    bus.listen('edge.throwing', z.object({ n: z.number() }), ({ data }) => {
      if (data.n === 1) throw new Error('a handler bug');
      seen.push(data.n);
    });
    await bus.flush();
    peer.publish('edge.throwing', '{"n":1}');
    peer.publish('edge.throwing', '{"n":2}');
    await peer.flush();
    const until = Date.now() + 5_000;
    while (seen.length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toEqual([2]);
    expect(bus.rejections.handlerFailures()).toEqual([{ subject: 'edge.throwing', count: 1 }]);
  });

  it('leaves a handoff that came after its sender stopped waiting: no ack, no handler, counted as abandoned', async () => {
    const served: number[] = [];
    bus.serve('edge.late', z.object({ n: z.number() }), ({ data }) => void served.push(data.n));
    await bus.flush();
    const sendWithAckBy = (n: number, ackByMs: number) => {
      const h = headers();
      h.set(busHeaders.ackBy, String(ackByMs));
      return peer.request('edge.late', JSON.stringify({ n }), { headers: h, timeout: 400 });
    };
    // Its sender gave up a second ago: taking it would run it beside the attempt that replaces it.
    await expect(sendWithAckBy(1, Date.now() - 1_000)).rejects.toThrow();
    // Its sender still waits: acked and served.
    expect((await sendWithAckBy(2, Date.now() + 2_000)).string()).toBe('{"ok":true}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(served).toEqual([2]);
    expect(bus.rejections.rejections()).toContainEqual({ subject: 'edge.late', reason: 'abandoned', count: 1 });
  });
});
