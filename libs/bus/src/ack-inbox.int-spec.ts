import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { busHeaders } from '@sluice/contracts';
import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AckInbox } from './ack-inbox.js';
import { Outbox } from './outbox.js';

/** The handoffs' ack inbox against a real nats-server: each way a wait can end, and many at once. */
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

/**
 * Runs `test` while another process answers on `subject` with `onMessage` (a callback body over
 * `nc` and `msg`): it answers while this process's event loop is blocked, as a live peer would.
 */
async function withResponder(subject: string, onMessage: string, test: () => Promise<void>): Promise<void> {
  const script = `import { connect } from '@nats-io/transport-node';
const nc = await connect({ servers: ${JSON.stringify(nats.url)} });
nc.subscribe(${JSON.stringify(subject)}, { callback: (_, msg) => { ${onMessage} } });
await nc.flush();
console.log('ready');
process.stdin.on('end', () => void nc.close().then(() => process.exit(0)));
process.stdin.resume();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    await once(child.stdout, 'data');
    await test();
  } finally {
    child.stdin.end();
    await once(child, 'exit');
  }
}

/** Keeps this process's event loop busy for `ms`, as a GC pause or a hot loop would. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

describe('AckInbox', () => {
  it('resolves each handoff with its own reply, however many wait at once', async () => {
    receiver.subscribe('acks.echo', { callback: (_, msg) => void msg.respond(msg.data) });
    await receiver.flush();
    const acks = new AckInbox(sender, new Outbox(sender, () => undefined), 2_000);
    const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => acks.send('acks.echo', `{"n":${i}}`, headers())));
    expect(outcomes.map((o) => (o.kind === 'reply' ? o.msg.json<{ n: number }>().n : o.kind))).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(acks.size).toBe(0);
  });

  it('says no_responders when nobody listens on the subject', async () => {
    const acks = new AckInbox(sender, new Outbox(sender, () => undefined), 2_000);
    expect(await acks.send('acks.nobody-here', '{}', headers())).toEqual({ kind: 'no_responders' });
  });

  it('times out a handoff whose receiver never acks, in deadline order, and ignores a late ack', async () => {
    const late: { respond: (data: string) => boolean }[] = [];
    receiver.subscribe('acks.silent', { callback: (_, msg) => void late.push(msg) });
    await receiver.flush();
    const acks = new AckInbox(sender, new Outbox(sender, () => undefined), 150);
    const started = performance.now();
    const first = acks.send('acks.silent', '{}', headers());
    await new Promise((r) => setTimeout(r, 50));
    const second = acks.send('acks.silent', '{}', headers());
    expect(await first).toEqual({ kind: 'timeout' });
    const firstAt = performance.now() - started;
    expect(await second).toEqual({ kind: 'timeout' });
    const secondAt = performance.now() - started;
    expect(firstAt).toBeGreaterThanOrEqual(149);
    expect(secondAt).toBeGreaterThanOrEqual(firstAt + 40);
    // The receiver wakes up and acks both: nothing is waiting, nothing is resolved twice.
    for (const msg of late) msg.respond('{"ok":true}');
    await sender.flush();
    expect(acks.size).toBe(0);
  });

  it('says closed for the handoffs waiting when the connection closes', async () => {
    const own = await connect({ servers: nats.url });
    receiver.subscribe('acks.never', { callback: () => undefined });
    await receiver.flush();
    const acks = new AckInbox(own, new Outbox(own, () => undefined), 60_000);
    const waiting = acks.send('acks.never', '{}', headers());
    await own.flush();
    await own.close();
    expect(await waiting).toEqual({ kind: 'closed' });
    expect(await acks.send('acks.never', '{}', headers())).toEqual({ kind: 'closed' });
  });

  it('writes each handoff\'s give-up time on it: the sender\'s wall clock plus the ack timeout', async () => {
    const seen: number[] = [];
    receiver.subscribe('acks.stamped', { callback: (_, msg) => void (seen.push(Number(msg.headers?.get(busHeaders.ackBy))), msg.respond('{"ok":true}')) });
    await receiver.flush();
    const acks = new AckInbox(sender, new Outbox(sender, () => undefined), 1_500);
    const before = Date.now();
    await acks.send('acks.stamped', '{}', headers());
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThanOrEqual(before + 1_500);
    expect(seen[0]).toBeLessThanOrEqual(Date.now() + 1_500);
  });

  it('reads an ack before a message that came after it in the same socket read (a promise would run after both)', async () => {
    // The receiver acks and then publishes an event the sender listens to, while this process is
    // busy: both wait in its socket and are read together.
    await withResponder('acks.then-event', `msg.respond('{"ok":true}'); nc.publish('acks.after-ack', '{}');`, async () => {
      const order: string[] = [];
      const after = sender.subscribe('acks.after-ack', { callback: () => void order.push('event') });
      await sender.flush();
      const acks = new AckInbox(sender, new Outbox(sender, () => undefined), 2_000);
      const outcome = acks.send('acks.then-event', '{}', headers(), (o) => order.push(`settled ${o.kind}`));
      void outcome.then((o) => order.push(`resolved ${o.kind}`));
      await new Promise((resolve) => setImmediate(resolve)); // the outbox writes the handoff at the end of the turn
      busyFor(200);
      await outcome;
      await sender.flush();
      after.unsubscribe();
      expect(order).toEqual(['settled reply', 'event', 'resolved reply']);
    });
  });

  it('does not time out a handoff whose ack came while the sender itself was stalled past the deadline', async () => {
    await withResponder('acks.stalled-sender', `msg.respond('{"ok":true}');`, async () => {
      const acks = new AckInbox(sender, new Outbox(sender, () => undefined), 150);
      const outcome = acks.send('acks.stalled-sender', '{}', headers());
      await new Promise((resolve) => setImmediate(resolve)); // the outbox writes the handoff at the end of the turn
      busyFor(400);
      expect((await outcome).kind).toBe('reply');
    });
  });
});
