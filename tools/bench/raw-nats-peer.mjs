// The far end of a raw NATS baseline, in a process of its own (so its CPU and its idling are its
// own, as a sluice service's are). Forked by raw-nats.mjs:
//   responder <nats url> <subject>   answers every request with its own payload (an echo);
//   stamper <nats url> <subject>     sends its parent the one-way transit of every message, in ms
//                                    (the message's `sentMs` against this process's arrival stamp:
//                                    both are performance.timeOrigin + performance.now(), which
//                                    share the system clock).
//   relay <nats url> <subject> <next> <ack inbox | ->
//                                    one stage of raw-nats-pipeline.mjs: takes `<subject>.<id>`,
//                                    acks it when it carries a reply subject (as a sluice handoff is
//                                    acked), and forwards the same bytes to `<next>.<id>` with
//                                    `<ack inbox>.<id>` as the reply subject (none for `-`).
// Sends 'ready' to its parent once subscribed.
import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';

const [role, natsUrl, subject] = process.argv.slice(2);
const nc = await connect({ servers: natsUrl });
if (role === 'responder') {
  nc.subscribe(subject, { callback: (_, msg) => void msg.respond(msg.data) });
} else if (role === 'stamper') {
  nc.subscribe(subject, { callback: (_, msg) => process.send?.(performance.timeOrigin + performance.now() - msg.json().sentMs) });
} else if (role === 'relay') {
  const [next, ackInbox] = process.argv.slice(5);
  const ack = new Uint8Array(0);
  // The acks this stage's forwards earn arrive here and are dropped: the sender's side of an acked handoff.
  if (ackInbox !== '-') nc.subscribe(`${ackInbox}.*`, { callback: () => undefined });
  const idFrom = subject.length + 1;
  nc.subscribe(`${subject}.*`, {
    callback: (_, msg) => {
      if (msg.reply) msg.respond(ack);
      const id = msg.subject.slice(idFrom);
      nc.publish(`${next}.${id}`, msg.data, ackInbox === '-' ? undefined : { reply: `${ackInbox}.${id}` });
    },
  });
} else {
  throw new Error(`raw-nats-peer: unknown role "${role}" (responder, stamper or relay)`);
}
await nc.flush();
process.send?.('ready');
process.on('disconnect', () => void nc.close().then(() => process.exit(0)));
