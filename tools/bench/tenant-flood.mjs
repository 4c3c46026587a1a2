// Benchmark (bounded state per tenant): N distinct tenant ids through a lone flow controller,
// with its flow bounds (maxFlows 1,000; flowGCTimeout 2 s, so the run does not wait the default 5 min)
// and without them (maxFlows 0, flowGCTimeout 1h: what every flow controller once did).
//   npm run build && node tools/bench/tenant-flood.mjs [--tenants 100000] [--unbounded-tenants 10000] [--settle 15]
// Not part of `npm run bench`. The flow controller runs alone on a real NATS; a plain NATS client sends
// acknowledged handoffs on flow.submit (256 in flight), one tenant each; the concurrency detector has
// room, so each is released at once and handed back (no router answers): a one-off tenant. Printed for
// each mode: RSS, V8 heap, the /metrics page and the flows tracked before the flood (after a warm-up of
// 5,000 requests of one tenant), at the peak (sampled every second: a scrape of the unbounded page is
// itself seconds of the flow controller's time), and --settle seconds after it.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from '@nats-io/transport-node';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const FAIRNESS_IDS = arg('tenants', 100_000);
const UNBOUNDED_FAIRNESS_IDS = arg('unbounded-tenants', 10_000);
const SETTLE_S = arg('settle', 15);

/** One scrape; a keep-alive connection the server closed just then (ECONNRESET) is tried again. */
async function reading(url) {
  let text;
  for (let attempt = 0; text === undefined; attempt++) {
    text = await fetch(`${url}/metrics`).then((r) => r.text(), (e) => (attempt < 3 ? undefined : Promise.reject(e)));
  }
  const value = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMb: value('process_resident_memory_bytes') / 2 ** 20, heapMb: value('nodejs_heap_size_used_bytes') / 2 ** 20, metricsKb: Buffer.byteLength(text) / 1024, tracked: value('sluice_flow_tracked_flows') };
}

async function submit(nc, count, fairnessIdOf, prefix) {
  let next = 0;
  const nowUs = Date.now() * 1_000;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const id = `${prefix}-${i}`;
      const request = { id, model: 'qwen3-14b', inputTokens: 16, blockHashes: [i], maxTokens: 1, sloClass: 'standard', priority: 3, fairnessId: fairnessIdOf(i), arrivalUs: nowUs, deadlineUs: nowUs + 60_000_000, attempt: 0, gatewayId: 'gw-flood', replyTo: `sluice.v1.inbox.gw-flood.${id}` };
      await nc.request('sluice.v1.flow.submit', JSON.stringify(request), { timeout: 120_000 });
    }
  };
  await Promise.all(Array.from({ length: 256 }, worker));
}

async function run(mode, fairnessIds, flowArgs) {
  const cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    services: ['flow-controller'],
    configArgs: ['--nats.auth=false', ...FREE_PORT_ARGS, ...flowArgs, '--flowController.saturationDetector={type: concurrency-detector, parameters: {maxConcurrency: 1000000}}'],
  });
  const url = cluster.services[0].url;
  const nc = await connect({ servers: cluster.natsUrl });
  const identity = { instanceId: 'flood-w-r0', workerId: 'flood-w', rank: 0, model: 'qwen3-14b', totalKvBlocks: 1_000 };
  const beat = (type) => nc.publish('sluice.v1.worker.flood-w-r0.lifecycle', JSON.stringify({ ...identity, type, atUs: Date.now() * 1_000 }));
  beat('register');
  const heartbeat = setInterval(() => beat('heartbeat'), 500);
  try {
    await submit(nc, 5_000, () => 'warm-up', 'warm');
    await sleep(4_000);
    const before = await reading(url);
    const peak = { ...before };
    const sampler = setInterval(() => {
      reading(url).then(
        (r) => {
          for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], r[k]);
        },
        () => undefined, // a lost sample
      );
    }, 1_000);
    const t = performance.now();
    await submit(nc, fairnessIds, (i) => `tenant-${i}`, 'flood');
    const seconds = (performance.now() - t) / 1000;
    clearInterval(sampler);
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k], (await reading(url))[k]);
    await sleep(SETTLE_S * 1_000);
    const after = await reading(url);
    return { mode, fairnessIds, seconds, before, peak, after };
  } finally {
    clearInterval(heartbeat);
    await nc.close();
    await cluster.stop();
  }
}

const results = [
  await run('bounded (maxFlows 1000, flowGCTimeout 2s)', FAIRNESS_IDS, ['--flowController.maxFlows=1000', '--flowController.flowGCTimeout=2s']),
  await run('unbounded (maxFlows 0, flowGCTimeout 1h)', UNBOUNDED_FAIRNESS_IDS, ['--flowController.maxFlows=0', '--flowController.flowGCTimeout=1h']),
];
const cell = (r) => `RSS ${r.rssMb.toFixed(0)} MB · heap ${r.heapMb.toFixed(0)} MB · /metrics ${r.metricsKb >= 1024 ? `${(r.metricsKb / 1024).toFixed(1)} MB` : `${r.metricsKb.toFixed(0)} kB`} · ${r.tracked} flows`;
for (const r of results) {
  console.log(`\n${r.mode}: ${r.fairnessIds} tenants in ${r.seconds.toFixed(1)} s`);
  console.log(`  before           ${cell(r.before)}`);
  console.log(`  peak             ${cell(r.peak)}`);
  console.log(`  ${SETTLE_S} s after       ${cell(r.after)}`);
}
