import { startNats, type NatsServerHandle } from '@sluice/launcher';
import { BusFaultsStateSchema, subjects, type BusFaultRuleInput } from '@sluice/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Bus } from './bus.js';

/**
 * Bus fault injection between two real Bus instances on a real nats-server: `sender` sends,
 * `receiver` receives, `control` asks the fault verbs as the CLI does (it answers none itself).
 * Absence is checked without sleeping: NATS keeps one connection's messages in order, so once a
 * marker sent after a message has arrived, the message would have arrived before it.
 */
let nats: NatsServerHandle;
let sender: Bus;
let receiver: Bus;
let control: Bus;

beforeAll(async () => {
  nats = await startNats();
  const quiet = () => undefined;
  sender = await Bus.connect({ url: nats.url, name: 'sender', ackTimeoutMs: 300, log: quiet });
  receiver = await Bus.connect({ url: nats.url, name: 'receiver', ackTimeoutMs: 300, log: quiet });
  control = await Bus.connect({ url: nats.url, name: 'control', ackTimeoutMs: 300, answerFaultControl: false, log: quiet });
  await Promise.all([sender.flush(), receiver.flush()]);
});

afterEach(async () => {
  await ask('clear', {});
});

afterAll(async () => {
  await Promise.all([sender?.drain(), receiver?.drain(), control?.drain()]);
  await nats?.stop();
});

async function ask(verb: 'get' | 'set' | 'clear', payload: BusFaultRuleInput | { subject?: string }) {
  const answers = await control.askAll(subjects.busFaults(verb), payload, { stallMs: 100 });
  return answers.map((a) => (a.ok ? BusFaultsStateSchema.parse(a.result) : a)).sort((a, b) => ('process' in a && 'process' in b ? a.process.localeCompare(b.process) : 0));
}

/** Collects what `receiver` hears on a subject pattern; `until` resolves when one arrives on the marker. */
function recorder(pattern: string) {
  const heard: { subject: string; data: unknown; at: number }[] = [];
  const waiters: { subject: string; resolve: () => void }[] = [];
  const sub = receiver.listen(pattern, z.unknown(), ({ subject, data }) => {
    heard.push({ subject, data, at: performance.now() });
    for (const w of waiters.filter((x) => x.subject === subject)) w.resolve();
  });
  return {
    heard,
    on: (subject: string) => heard.filter((h) => h.subject === subject),
    until: (subject: string) => new Promise<void>((resolve) => waiters.push({ subject, resolve })),
    ready: () => receiver.flush(),
    stop: () => sub.unsubscribe(),
  };
}

describe('bus fault injection', () => {
  it('every process but the asker answers with its name and rules', async () => {
    const set = await ask('set', { subject: 'test.drop.*', dropPercent: 100 });
    expect(set).toEqual([
      { process: 'receiver', rules: [{ subject: 'test.drop.*', delayMs: 0, jitterMs: 0, dropPercent: 100, duplicatePercent: 0 }], applied: expect.any(Object) },
      { process: 'sender', rules: [{ subject: 'test.drop.*', delayMs: 0, jitterMs: 0, dropPercent: 100, duplicatePercent: 0 }], applied: expect.any(Object) },
    ]);
    expect((await ask('get', {})).map((s) => ('rules' in s ? s.rules.length : -1))).toEqual([1, 1]);
    const refused = await ask('set', { subject: 'a.>.b' });
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatchObject({ ok: false, message: expect.stringContaining('not a NATS subject pattern') });
  });

  it('a 100% drop rule stops delivery on the matching subject only, and clearing it restores delivery', async () => {
    const rec = recorder('test.>');
    await rec.ready();
    await ask('set', { subject: 'test.drop.*', dropPercent: 100 });
    const dropsBefore = sender.faultStats().dropped;

    const marker = rec.until('test.marker');
    sender.publish('test.drop.x', { n: 1 });
    sender.publish('test.keep.x', { n: 2 });
    sender.publish('test.marker', {});
    await marker;
    expect(rec.on('test.drop.x')).toEqual([]);
    expect(rec.on('test.keep.x')).toHaveLength(1);
    expect(sender.faultStats().dropped).toBe(dropsBefore + 1);

    await ask('clear', { subject: 'test.drop.*' });
    const delivered = rec.until('test.drop.x');
    sender.publish('test.drop.x', { n: 3 });
    await delivered;
    expect(rec.on('test.drop.x').map((h) => h.data)).toEqual([{ n: 3 }]);
    rec.stop();
  });

  it('control subjects are never faulted, so a rule on > can still be cleared', async () => {
    await ask('set', { subject: '>', dropPercent: 100 });
    expect((await ask('get', {})).map((s) => ('rules' in s ? s.rules.map((r) => r.subject) : []))).toEqual([['>'], ['>']]);
    expect(await ask('clear', {})).toMatchObject([{ rules: [] }, { rules: [] }]);
  });

  it('a delay rule delays delivery by at least delayMs', async () => {
    const rec = recorder('test.slow');
    await rec.ready();
    await ask('set', { subject: 'test.slow', delayMs: 150, jitterMs: 20 });
    const arrived = rec.until('test.slow');
    const sentAt = performance.now();
    sender.publish('test.slow', { n: 1 });
    await arrived;
    expect(rec.heard[0]!.at - sentAt).toBeGreaterThanOrEqual(150);
    expect(sender.faultStats().delayed).toBeGreaterThanOrEqual(1);
    rec.stop();
  });

  it('a 100% duplicate rule delivers two copies', async () => {
    const rec = recorder('test.>');
    await rec.ready();
    await ask('set', { subject: 'test.dup', duplicatePercent: 100 });
    const marker = rec.until('test.marker');
    sender.publish('test.dup', { n: 1 });
    sender.publish('test.marker', {});
    await marker;
    expect(rec.on('test.dup').map((h) => h.data)).toEqual([{ n: 1 }, { n: 1 }]);
    rec.stop();
  });

  it('a dropped handoff is never sent and ends as a timeout; a duplicated one reaches the receiver twice', async () => {
    const served: string[] = [];
    const sub = receiver.serve('test.handoff.*', z.object({ n: z.number() }), ({ subject }) => void served.push(subject));
    await receiver.flush();
    await ask('set', { subject: 'test.handoff.lost', dropPercent: 100 });
    await ask('set', { subject: 'test.handoff.twice', duplicatePercent: 100 });

    const lost = await sender.handoff('test.handoff.lost', { n: 1 }, 'req-1');
    expect(lost).toEqual({ ok: false, why: 'timeout', message: 'no ack from test.handoff.lost in time' });
    expect(await sender.handoff('test.handoff.twice', { n: 2 }, 'req-2')).toEqual({ ok: true });
    expect(await sender.handoff('test.handoff.ok', { n: 3 }, 'req-3')).toEqual({ ok: true });
    // The copy of "twice" was sent before "ok" on the same connection, so it has been served by now.
    await receiver.flush();
    expect(served.sort()).toEqual(['test.handoff.ok', 'test.handoff.twice', 'test.handoff.twice']);
    sub.unsubscribe();
  });
});
