// Benchmark: what one NATS transit costs when the processes on both ends have been idle.
//   npm run build && node tools/bench/idle-transit.mjs [--n 200]
// A publisher sends ~2 KB messages (the size of an InferenceRequest with 32 block hashes) to a
// subscriber in another process, with a pause between messages (openIdleTransit in raw-nats.mjs,
// which live-path.mjs uses for its idle single requests' baseline). Baseline: back-to-back
// messages (0.2 ms apart), measured in the same run. A single request through the cluster crosses
// NATS at every hop, each after its receiver idled for as long as the request took to reach it,
// so this is the floor under the cluster's added TTFT.
import { startNats } from '@sluice/launcher';
import { commandLine } from './bench-run.mjs';
import { pct } from './live/load-generator.mjs';
import { openIdleTransit } from './raw-nats.mjs';

const { option } = commandLine();
const n = Number(option('n', 200)) || 200;
const nats = await startNats();
const idle = await openIdleTransit(nats.url);
try {
  console.log(`idle transit benchmark (n=${n} per gap, node ${process.version})`);
  let baseline = 0;
  for (const gapMs of [0.2, 5, 40]) {
    const transits = (await idle.measure(gapMs, n)).sort((a, b) => a - b);
    const p50 = pct(transits, 50);
    if (gapMs === 0.2) baseline = p50;
    const label = gapMs === 0.2 ? '(baseline)' : `${(p50 / baseline).toFixed(2)}× back-to-back`;
    console.log(`one-way transit, ${String(gapMs).padStart(3)} ms idle before   p50 ${(p50 * 1000).toFixed(0)} µs  p90 ${(pct(transits, 90) * 1000).toFixed(0)} µs  ${label}`);
  }
} finally {
  await idle.close();
  await nats.stop();
}
