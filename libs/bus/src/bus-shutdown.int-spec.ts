import { connect, type NatsConnection } from '@nats-io/transport-node';
import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from './bus.js';

/**
 * A stage's bus at shutdown, against a real nats-server: it stops taking handoffs first, keeps
 * hearing events, and closes only after the acks of its own handoffs came back.
 */
let nats: NatsServerHandle;
let peer: NatsConnection;

beforeAll(async () => {
  nats = await startNats();
  peer = await connect({ servers: nats.url });
});

afterAll(async () => {
  await peer?.close();
  await nats?.stop();
});

const connectBus = (name: string) => Bus.connect({ url: nats.url, name, ackTimeoutMs: 1_000, waitForServer: false, answerFaultControl: false });
const Payload = z.object({ n: z.number() });

describe('Bus at shutdown', () => {
  it('waits for the ack of a handoff still on its way before it closes (the next stage took it)', async () => {
    // The next stage acks 300 ms late (a busy process): the handoff was taken, and must read so.
    peer.subscribe('shutdown.slow-ack', { callback: (_, msg) => void setTimeout(() => msg.respond('{"ok":true}'), 300) });
    await peer.flush();
    const bus = await connectBus('slow-ack-sender');
    const handoff = bus.handoff('shutdown.slow-ack', { n: 1 }, 'r1');
    await bus.drain();
    expect(await handoff).toEqual({ ok: true });
    expect(bus.connection.isClosed()).toBe(true);
  });

  it('stops taking handoffs when asked (a re-submission finds no responder), and still hears events', async () => {
    const bus = await connectBus('stopping-stage');
    const served: number[] = [];
    const heard: number[] = [];
    bus.serve('shutdown.intake', Payload, ({ data }) => void served.push(data.n));
    bus.listen('shutdown.events', Payload, ({ data }) => void heard.push(data.n));
    await bus.flush();
    const sender = await connectBus('sender');
    expect(await sender.handoff('shutdown.intake', { n: 1 }, 'r1')).toEqual({ ok: true });

    await bus.stopServing();
    expect(await sender.handoff('shutdown.intake', { n: 2 }, 'r2')).toMatchObject({ ok: false, why: 'no_responders' });
    sender.publish('shutdown.events', { n: 3 });
    await sender.flush();
    await bus.flush();
    expect(served).toEqual([1]);
    expect(heard).toEqual([3]);
    await Promise.all([bus.drain(), sender.drain()]);
  });
});
