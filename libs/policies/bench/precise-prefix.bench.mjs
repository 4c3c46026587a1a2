// Precise-prefix routing decision time and KV-event index memory, pure code, no I/O:
//   npm run build && node --expose-gc libs/policies/bench/precise-prefix.bench.mjs
// A KvEventIndex fed, per instance, 10 000 blocks through stored events (the goal's size): two of
// 64 shared "system prompt" families of 64 blocks, the rest private to the instance (its users'
// contexts). Requests have 64 blocks: the first 32 of one family, then 32 of their own. Timed, one
// `route()` each (performance.now() around it), p50 and p99, interleaved rounds as in
// routing.bench.mjs: `weighted` with BLIS's default profile at its blackbox commit
// (precise-prefix-cache:2,queue-depth:1,kv-utilization:1), `kv-router` at temperature 0 and 0.5,
// and the index's bulk lookup alone. Memory: heap growth while building the index (after a
// forced GC), per instance and per block.
import { performance } from 'node:perf_hooks';
import { seededRandom } from '@sluice/collections';
import { KvEventIndex, createRoutingRegistry } from '../dist/index.js';

const INSTANCES = Number(process.env.INSTANCES ?? 1_000);
const BLOCKS_PER_INSTANCE = 10_000;
const MODEL = 'qwen3-14b';
const BLOCKS = 64;
const SHARED = 32;
const FAMILIES = 64;
const FAMILIES_PER_INSTANCE = 2;
const EVENT_BLOCKS = 500; // blocks per stored event (an engine step's worth of prefill)
const REQUESTS = 1_024;
const ROUND = 50;
const WARMUP = 20;
const ROUNDS = 60; // → 3 000 timed decisions per row
const GOAL_MS = 1;

const rand = seededRandom(20_261_128);
const int = (max) => Math.floor(rand() * (max + 1));
const family = (f) => Array.from({ length: BLOCKS }, (_, k) => f * BLOCKS + k);
const requests = Array.from({ length: REQUESTS }, (_, r) => ({
  id: `r${r}`,
  model: MODEL,
  inputTokens: BLOCKS * 16,
  maxTokens: 128,
  priority: 3,
  sloClass: 'standard',
  fairnessId: 'default',
  blockHashes: [...family(r % FAMILIES).slice(0, SHARED), ...Array.from({ length: BLOCKS - SHARED }, (_, k) => 1e12 + r * BLOCKS + k)],
}));

const gc = globalThis.gc ?? (() => {});
gc();
const heapBefore = process.memoryUsage().heapUsed;
const built = performance.now();
const kvCache = new KvEventIndex(BLOCKS_PER_INSTANCE, 0);
let privateBlock = FAMILIES * BLOCKS;
const instances = Array.from({ length: INSTANCES }, (_, i) => {
  const instanceId = `w${Math.floor(i / 8)}/${i % 8}`;
  const held = [];
  for (let k = 0; k < FAMILIES_PER_INSTANCE; k++) held.push(...family(int(FAMILIES - 1)));
  while (held.length < BLOCKS_PER_INSTANCE) held.push(privateBlock++);
  for (let at = 0; at < held.length; at += EVENT_BLOCKS) kvCache.receive({ instanceId, atUs: 0, stored: held.slice(at, at + EVENT_BLOCKS), removed: [] });
  return {
    instanceId,
    workerId: `w${Math.floor(i / 8)}`,
    rank: i % 8,
    model: MODEL,
    totalKvBlocks: 17_600,
    inFlight: int(8),
    queueDepth: int(15),
    batchSize: int(64),
    kvUtilization: rand(),
    activePrefillTokens: int(4_096),
    activeDecodeBlocks: int(8_000),
    snapshotAgeUs: int(50) * 1_000,
  };
});
const buildMs = performance.now() - built;
gc();
const heapBytes = process.memoryUsage().heapUsed - heapBefore;
const view = { instances, kvCache };

let sink = 0;
const POLICIES = [
  ['weighted precise-prefix-cache:2,queue-depth:1,kv-utilization:1 (BLIS default)', 'weighted', { weights: 'precise-prefix-cache:2,queue-depth:1,kv-utilization:1' }],
  ['kv-router, temperature 0', 'kv-router', {}],
  ['kv-router, temperature 0.5', 'kv-router', { temperature: 0.5 }],
];
const measurements = new Map();
let next = 0;
measurements.set('KV-event index bulk lookup alone', (out) => {
  for (let k = 0; k < ROUND; k++) {
    const { blockHashes } = requests[next++ % REQUESTS];
    const t = performance.now();
    const matched = kvCache.matchedBlocksByInstance(blockHashes);
    out.push((performance.now() - t) * 1_000);
    sink += matched.size;
  }
});
for (const [label, name, params] of POLICIES) {
  const policy = createRoutingRegistry().create(name, params, { random: seededRandom(7) });
  measurements.set(label, (out) => {
    for (let k = 0; k < ROUND; k++) {
      const request = requests[next++ % REQUESTS];
      const t = performance.now();
      const decision = policy.route(request, view, 0);
      out.push((performance.now() - t) * 1_000);
      sink += decision.regret + decision.instance.rank;
    }
  });
}
const samples = new Map([...measurements.keys()].map((key) => [key, []]));
const scratch = [];
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const [key, run] of measurements) run(round < WARMUP ? ((scratch.length = 0), scratch) : samples.get(key));
}
const quantile = (key, q) => {
  const sorted = samples.get(key).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const us = (x) => (x >= 100 ? `${x.toFixed(0)} µs` : x >= 10 ? `${x.toFixed(1)} µs` : `${x.toFixed(2)} µs`);

const stats = kvCache.stats();
console.log(`precise-prefix routing: ${INSTANCES} instances × ${BLOCKS_PER_INSTANCE} blocks in the KV-event index, ${BLOCKS}-block requests, ${ROUNDS * ROUND} decisions per row (node ${process.version})`);
console.log(`index: ${stats.blocks} blocks held, built from events in ${buildMs.toFixed(0)} ms; heap ${(heapBytes / 2 ** 20).toFixed(0)} MiB${globalThis.gc ? '' : ' (run with --expose-gc for a clean figure)'} = ${(heapBytes / INSTANCES / 2 ** 10).toFixed(0)} KiB per instance, ${(heapBytes / stats.blocks).toFixed(0)} B per block; bounded by router.kvEventIndexCapacity blocks per instance`);
for (const key of measurements.keys()) console.log(`${key.padEnd(80)} p50 ${us(quantile(key, 0.5)).padStart(9)}   p99 ${us(quantile(key, 0.99)).padStart(9)}`);
for (const [label] of POLICIES) {
  const p99 = quantile(label, 0.99) / 1_000;
  console.log(`goal: ${label} p99 ≤ ${GOAL_MS} ms at ${INSTANCES} instances: ${p99.toFixed(3)} ms, ${p99 <= GOAL_MS ? 'met' : 'MISSED'}`);
}
if (sink === 0) console.log();
