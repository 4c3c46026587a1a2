// The raw NATS baselines the benchmarks measure against, so each compares against the same thing:
// request/reply latency and throughput (hop-latency.mjs, live-path.mjs), the CPU one round trip
// costs (raw-nats-cpu.mjs, live-path.mjs) and one transit after both ends idled (idle-transit.mjs,
// live-path.mjs). A representative InferenceRequest is the payload.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { cpuSeconds } from './live/load-generator.mjs';

const SUBJECT = 'bench.raw';
const ECHO_SUBJECT = 'bench.raw.echo';
const IDLE_SUBJECT = 'bench.idle';

/** A representative InferenceRequest (~430 B of JSON, block hashes as numbers). */
export function benchInferenceRequest() {
  return {
    id: 'bench-1', model: 'qwen3-14b', inputTokens: 128, blockHashes: Array.from({ length: 8 }, (_, i) => 4_503_599_627_370_496 + i),
    maxTokens: 1, sloClass: 'standard', priority: 3, fairnessId: 'default', arrivalUs: Date.now() * 1_000, deadlineUs: (Date.now() + 60_000) * 1_000,
    attempt: 0, gatewayId: 'gw-bench', replyTo: 'sluice.v1.inbox.gw-bench.bench-1', timings: {},
  };
}

/** A responder that acks at once, and a client that asks it: `roundTrip()` is one raw request/reply. */
export async function openRawEcho(natsUrl) {
  const server = await connect({ servers: natsUrl });
  const client = await connect({ servers: natsUrl });
  server.subscribe(SUBJECT, { callback: (_, msg) => void msg.respond('{"ok":true}') });
  await server.flush();
  return {
    roundTrip: (payload, timeoutMs = 2_000) => client.request(SUBJECT, payload, { timeout: timeoutMs }),
    /** `n` round trips one after another: each one's ms. */
    async sequential(payload, n) {
      const times = [];
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        await client.request(SUBJECT, payload, { timeout: 2_000 });
        times.push(performance.now() - t);
      }
      return times;
    },
    close: () => Promise.all([server.close(), client.close()]),
  };
}


/** Forks raw-nats-peer.mjs as `role` on `subject` (with the role's further arguments); resolves once it has subscribed. */
export async function forkPeer(role, natsUrl, subject, ...args) {
  const child = fork(fileURLToPath(new URL('./raw-nats-peer.mjs', import.meta.url)), [role, natsUrl, subject, ...args]);
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`raw-nats-peer ${role} exited with ${code} before it was ready`)));
  });
  child.removeAllListeners('exit');
  return child;
}

export async function stopPeer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill();
  await exited;
}

/**
 * The CPU raw request/reply costs: this process as the client, an echo responder in a child process,
 * and the nats-server (its pid, `natsPid`). `measure(rate, seconds, payload)` offers `rate` round
 * trips/s open loop for `seconds` and gives each one's CPU (user + system, /proc) over the run,
 * divided by the round trips made, in µs: { rate, roundTrips, failed, us: { client, responder, natsServer, total } }.
 * At low rates every message wakes a sleeping process; at high rates messages share syscalls and
 * wake-ups, and the cost per round trip falls: compare at the same rate.
 */
export async function openRawCpuProbe(natsUrl, natsPid) {
  const responder = await forkPeer('responder', natsUrl, ECHO_SUBJECT);
  const nc = await connect({ servers: natsUrl });
  const pids = { client: process.pid, responder: responder.pid, natsServer: natsPid };
  const cpuNow = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, pid === undefined ? undefined : cpuSeconds(pid)]));
  return {
    async measure(rate, seconds, payload) {
      const total = Math.max(1, Math.round(rate * seconds));
      const before = cpuNow();
      const started = performance.now();
      let sent = 0;
      let ended = 0;
      let failed = 0;
      await new Promise((resolve) => {
        const end = () => ++ended === total && resolve();
        const fail = () => ((failed += 1), end());
        const tick = () => {
          const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000));
          for (; sent < due; sent++) nc.request(ECHO_SUBJECT, payload, { timeout: 5_000 }).then(end, fail);
          if (sent < total) setTimeout(tick, 1);
        };
        tick();
      });
      const after = cpuNow();
      const us = {};
      for (const name of Object.keys(pids)) us[name] = before[name] === undefined || after[name] === undefined ? undefined : ((after[name] - before[name]) * 1e6) / total;
      us.total = Object.values(us).some((v) => v === undefined) ? undefined : us.client + us.responder + us.natsServer;
      return { rate, roundTrips: total, failed, us };
    },
    close: async () => {
      await nc.close();
      await stopPeer(responder);
    },
  };
}

/**
 * One-way NATS transits after both ends idled: this process publishes ~2 KB messages (the size of
 * an InferenceRequest with 32 block hashes) to a subscriber in a child process, which stamps their
 * arrival. `measure(gapMs, n)` sends `n` messages, each `gapMs` after the one before, and gives each
 * transit in ms (arrival order). A request through the cluster crosses NATS this way at every hop,
 * each after its receiver idled for as long as the request took to reach it.
 * One message goes first and is not counted, as idleRequests sends one uncounted request: without
 * it the first counted transit followed however long the caller spent since the last measure (in
 * live-path, a whole block of idle requests), not `gapMs`.
 */
export async function openIdleTransit(natsUrl) {
  const stamper = await forkPeer('stamper', natsUrl, IDLE_SUBJECT);
  const nc = await connect({ servers: natsUrl });
  const pad = 'x'.repeat(2000);
  return {
    async measure(gapMs, n) {
      const transits = [];
      const record = (ms) => transits.push(ms);
      stamper.on('message', record);
      for (let i = 0; i <= n; i++) {
        nc.publish(IDLE_SUBJECT, JSON.stringify({ sentMs: performance.timeOrigin + performance.now(), pad }));
        await sleep(gapMs);
      }
      await sleep(100);
      stamper.off('message', record);
      // NATS keeps one publisher's order and so does the child's IPC channel: the first stamp is the uncounted message's.
      return transits.slice(1);
    },
    close: async () => {
      await nc.close();
      await stopPeer(stamper);
    },
  };
}
