// Benchmark: what one NATS transit costs when the processes on both ends have been idle.
//   npm run build && node tools/bench/idle-transit.mjs [--n 200]
// A publisher sends ~2 KB messages (the size of an InferenceRequest with 32 block hashes) to a
// subscriber in another process, with a pause between messages. The subscriber stamps arrival;
// both stamp with performance.timeOrigin + performance.now(), which share the system clock.
// Baseline: back-to-back messages (0.2 ms apart), measured in the same run. A single request
// through the cluster crosses NATS five times, each after its receiver idled for as long as the
// request took to reach it, so this is the floor under the cluster's added TTFT.
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { startNats } from '@sluice/launcher';

const wallMs = () => performance.timeOrigin + performance.now();

if (process.argv[2] === 'subscriber') {
  const nc = await connect({ servers: process.argv[3] });
  nc.subscribe('bench.idle', { callback: (_, msg) => process.send?.(wallMs() - msg.json().sentMs) });
  await nc.flush();
  process.send?.('ready');
} else {
  const n = Number(process.argv[process.argv.indexOf('--n') + 1]) || 200;
  const nats = await startNats();
  const subscriber = fork(fileURLToPath(import.meta.url), ['subscriber', nats.url]);
  await new Promise((resolve) => subscriber.once('message', resolve));
  const nc = await connect({ servers: nats.url });
  const pad = 'x'.repeat(2000);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
  console.log(`idle transit benchmark (n=${n} per gap, node ${process.version})`);
  let baseline = 0;
  for (const gapMs of [0.2, 5, 40]) {
    const transits = [];
    const record = (ms) => transits.push(ms);
    subscriber.on('message', record);
    for (let i = 0; i < n; i++) {
      nc.publish('bench.idle', JSON.stringify({ sentMs: wallMs(), pad }));
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    subscriber.off('message', record);
    const p50 = median(transits);
    if (gapMs === 0.2) baseline = p50;
    const label = gapMs === 0.2 ? '(baseline)' : `${(p50 / baseline).toFixed(2)}× back-to-back`;
    console.log(`one-way transit, ${String(gapMs).padStart(3)} ms idle before   p50 ${(p50 * 1000).toFixed(0)} µs  p90 ${(p90(transits) * 1000).toFixed(0)} µs  ${label}`);
  }
  subscriber.kill();
  await nc.close();
  await nats.stop();
}
