import { connect, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from './outbox.js';

/** The per-turn outbox against a real nats-server: what one turn sends arrives whole and in order. */
let nats: NatsServerHandle;
let sender: NatsConnection;
let receiver: NatsConnection;

beforeAll(async () => {
  nats = await startNats();
  sender = await connect({ servers: nats.url });
  receiver = await connect({ servers: nats.url });
});

afterAll(async () => {
  await Promise.all([sender?.close(), receiver?.close()]);
  await nats?.stop();
});

function collect(subject: string, n: number): Promise<Msg[]> {
  const got: Msg[] = [];
  return new Promise((resolve) => {
    receiver.subscribe(subject, {
      callback: (_e, msg) => {
        got.push(msg);
        if (got.length === n) resolve(got);
      },
    });
  });
}

describe('Outbox', () => {
  it('holds what one turn sends until the turn ends, then sends all of it in order', async () => {
    const arrived = collect('outbox.order.>', 3);
    await receiver.flush();
    const outbox = new Outbox(sender, (subject, e) => expect.fail(`${subject}: ${String(e)}`));
    outbox.send('outbox.order.a', 'one');
    outbox.send('outbox.order.b', 'two', undefined, 'reply.to.me');
    outbox.send('outbox.order.a', 'three');
    expect(outbox.size).toBe(3); // nothing left yet: the turn is not over
    await new Promise((resolve) => setImmediate(resolve));
    expect(outbox.size).toBe(0);
    const messages = await arrived;
    expect(messages.map((m) => [m.subject, m.string()])).toEqual([
      ['outbox.order.a', 'one'],
      ['outbox.order.b', 'two'],
      ['outbox.order.a', 'three'],
    ]);
    expect(messages[1]!.reply).toBe('reply.to.me');
  });

  it('tells the sender of each message the client refused (a closed connection), and the error hook the rest', async () => {
    const closing = await connect({ servers: nats.url });
    const failures: string[] = [];
    const outbox = new Outbox(closing, (subject) => failures.push(`hook ${subject}`));
    outbox.send('outbox.closed.a', 'x', undefined, undefined, () => failures.push('refused a'));
    outbox.send('outbox.closed.b', 'y');
    await closing.close();
    outbox.flush();
    expect(failures).toEqual(['refused a', 'hook outbox.closed.b']);
  });
});
