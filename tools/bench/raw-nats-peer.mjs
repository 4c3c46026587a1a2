// The far end of a raw NATS baseline, in a process of its own (so its CPU and its idling are its
// own, as a sluice service's are). Forked by raw-nats.mjs:
//   responder <nats url> <subject>   answers every request with its own payload (an echo);
//   stamper <nats url> <subject>     sends its parent the one-way transit of every message, in ms
//                                    (the message's `sentMs` against this process's arrival stamp:
//                                    both are performance.timeOrigin + performance.now(), which
//                                    share the system clock).
// Sends 'ready' to its parent once subscribed.
import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';

const [role, natsUrl, subject] = process.argv.slice(2);
const nc = await connect({ servers: natsUrl });
if (role === 'responder') {
  nc.subscribe(subject, { callback: (_, msg) => void msg.respond(msg.data) });
} else if (role === 'stamper') {
  nc.subscribe(subject, { callback: (_, msg) => process.send?.(performance.timeOrigin + performance.now() - msg.json().sentMs) });
} else {
  throw new Error(`raw-nats-peer: unknown role "${role}" (responder or stamper)`);
}
await nc.flush();
process.send?.('ready');
process.on('disconnect', () => void nc.close().then(() => process.exit(0)));
