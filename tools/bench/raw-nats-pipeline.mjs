// The raw NATS baseline for a request's latency under load: the same number of chained hops as the
// cluster's path, each into a process of its own, with nothing but NATS in between. Its tail is what
// this machine's scheduling and the transport give any six-process chain at a rate, so the
// cluster's overhead p99 can be read against it rather than against zero.
import { performance } from 'node:perf_hooks';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import { connect } from '@nats-io/transport-node';
import { HOPS } from './live/goals.mjs';
import { forkPeer, stopPeer } from './raw-nats.mjs';

const STAGE = (k) => `bench.pipe.${k}`;
const ACK_INBOX = (k) => `bench.pipe.ack.${k}`;
const DONE = 'bench.pipe.done';

/**
 * A chain of HOPS − 1 relay processes (raw-nats-peer.mjs `relay`) behind this process, which sends
 * and receives: request → relay 1 → … → relay 5 → back here, HOPS transits. Every forward but the
 * last is acked by its receiver, as a sluice handoff is; the last one, like the worker's end frame,
 * is not. The request's id rides as the subject's last token, so no stage parses the payload.
 *
 * `measure(rate, seconds, payload)` offers `rate` requests/s open loop for `seconds`, launched as
 * the cluster's load generator launches them (a 1 ms interval sending every request that is due),
 * and gives each answered request's latency from its scheduled send in ms:
 * { rate, seconds, sent, answered, achievedRate, latencyMs }. Requests not back 5 s after the last
 * send are counted as not answered.
 */
export async function openRawPipeline(natsUrl) {
  const relays = [];
  try {
    for (let k = 1; k < HOPS; k++) {
      const last = k === HOPS - 1;
      relays.push(await forkPeer('relay', natsUrl, STAGE(k), last ? DONE : STAGE(k + 1), last ? '-' : ACK_INBOX(k)));
    }
  } catch (error) {
    await Promise.all(relays.map(stopPeer));
    throw error;
  }
  const nc = await connect({ servers: natsUrl });
  nc.subscribe(`${ACK_INBOX(0)}.*`, { callback: () => undefined });
  /** Scheduled send of each request in flight, by id; ids run on across measurements. */
  const inFlight = new Map();
  let onDone = () => undefined;
  const doneFrom = DONE.length + 1;
  nc.subscribe(`${DONE}.*`, { callback: (_, msg) => onDone(Number(msg.subject.slice(doneFrom))) });
  await nc.flush();
  let nextId = 0;

  return {
    async measure(rate, seconds, payload) {
      const total = Math.max(1, Math.round(rate * seconds));
      const spacing = 1000 / rate;
      const latencyMs = [];
      let answeredInWindow = 0;
      const t0 = performance.now() + 2;
      const windowEnd = t0 + seconds * 1000;
      let allBack = () => undefined;
      const back = new Promise((resolve) => (allBack = resolve));
      onDone = (id) => {
        const scheduled = inFlight.get(id);
        if (scheduled === undefined) return;
        inFlight.delete(id);
        const now = performance.now();
        latencyMs.push(now - scheduled);
        if (now <= windowEnd) answeredInWindow += 1;
        if (latencyMs.length === total) allBack();
      };
      await new Promise((resolve) => {
        let launched = 0;
        const interval = setInterval(() => {
          const now = performance.now();
          while (launched < total && t0 + launched * spacing <= now) {
            const id = nextId++;
            inFlight.set(id, t0 + launched * spacing);
            nc.publish(`${STAGE(1)}.${id}`, payload, { reply: `${ACK_INBOX(0)}.${id}` });
            launched += 1;
          }
          if (launched >= total) {
            clearInterval(interval);
            resolve();
          }
        }, 1);
      });
      let timer;
      await Promise.race([back, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      inFlight.clear();
      return { rate, seconds, sent: total, answered: latencyMs.length, achievedRate: answeredInWindow / seconds, latencyMs };
    },
    close: async () => {
      await nc.close();
      await Promise.all(relays.map(stopPeer));
    },
  };
}
