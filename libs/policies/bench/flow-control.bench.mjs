// Flow control cost, pure code, no I/O:  npm run build && node libs/policies/bench/flow-control.bench.mjs
// 1. enqueue: ns per request into FlowQueues, 3 bands (priorities 4, 3, -2) × 100 tenants = 300 flows;
// 2. dispatch at 10 000 queued: one peek + take (timed over the first 1 000 dispatches of a full queue),
//    and a whole runDispatchCycle draining all 10 000 with a never-saturated detector, per dispatch;
// each for round-robin + FCFS, global-strict + FCFS and round-robin + EDF.
// Baseline, same objects, same run: a plain JS array as a FIFO, push (for enqueue) and shift (for dispatch).
// Every figure is the median of REPS repetitions, after WARMUP untimed rounds.
import { performance } from 'node:perf_hooks';
import { FlowQueues, createFlowControlRegistry, runDispatchCycle } from '../dist/index.js';

const N = 10_000;
const FAIRNESS_IDS = 100;
const PRIORITIES = [4, 3, -2];
const WARMUP = 10;
const REPS = 31;
const FIRST = 1_000; // dispatches timed for "one peek + take at 10 000 queued"

const registry = createFlowControlRegistry();
// Request i: band i mod 3, tenant ⌊i / 3⌋ mod 100, so every flow holds 33 or 34 requests.
const requests = Array.from({ length: N }, (_, i) => ({
  id: `r${i}`,
  flow: { fairnessId: `tenant-${Math.floor(i / PRIORITIES.length) % FAIRNESS_IDS}`, priority: PRIORITIES[i % PRIORITIES.length] },
  byteSize: 2_048,
  tokens: 640,
  arrivalUs: i * 100, // 0.1 ms apart
  payload: null,
}));

const settingsFor = (fairnessName, orderingName) => {
  const band = () => ({ maxRequests: 0, maxBytes: 0, fairness: registry.fairness.create(fairnessName, {}), ordering: registry.ordering.create(orderingName, {}) });
  return { maxRequests: 0, maxBytes: 0, defaultRequestTtlUs: 60_000_000, bands: new Map(PRIORITIES.map((p) => [p, band()])), defaultBand: band() };
};
const filled = (settings) => {
  const queues = new FlowQueues(settings);
  for (let i = 0; i < N; i++) queues.enqueue(requests[i], i * 100);
  return queues;
};

let sink = 0; // keeps results alive so nothing is optimised away

// Each measurement returns [elapsed ms, operations]. They run interleaved, one repetition of each
// per round, so JIT state, GC and a busy machine affect all of them alike.
const measurements = new Map();

// Baseline: the same 10 000 objects through a plain array used as a FIFO.
measurements.set('push', () => {
  const fifo = [];
  const t = performance.now();
  for (let i = 0; i < N; i++) fifo.push(requests[i]);
  const ms = performance.now() - t;
  sink += fifo.length;
  return [ms, N];
});
measurements.set('shift', () => {
  const fifo = requests.slice();
  const t = performance.now();
  for (let i = 0; i < N; i++) sink += fifo.shift().tokens;
  return [performance.now() - t, N];
});

const configs = [
  ['round-robin + FCFS', 'round-robin-fairness-policy', 'fcfs-ordering-policy'],
  ['global-strict + FCFS', 'global-strict-fairness-policy', 'fcfs-ordering-policy'],
  ['round-robin + EDF', 'round-robin-fairness-policy', 'edf-ordering-policy'],
];
for (const [label, fairness, ordering] of configs) {
  const settings = settingsFor(fairness, ordering);
  measurements.set(`enqueue, ${label}`, () => {
    const queues = new FlowQueues(settings);
    const t = performance.now();
    for (let i = 0; i < N; i++) queues.enqueue(requests[i], i * 100);
    const ms = performance.now() - t;
    sink += queues.size;
    return [ms, N];
  });
  measurements.set(`one peek + take at 10 000 queued, ${label}`, () => {
    const queues = filled(settings);
    const t = performance.now();
    for (let i = 0; i < FIRST; i++) {
      const next = queues.peek();
      queues.take(next);
      sink += next.tokens;
    }
    return [performance.now() - t, FIRST];
  });
  measurements.set(`runDispatchCycle draining 10 000, ${label}`, () => {
    const queues = filled(settings);
    const t = performance.now();
    const result = runDispatchCycle(
      queues,
      () => 0,
      (item) => (sink += item.tokens),
    );
    const ms = performance.now() - t;
    if (result.dispatched !== N || queues.size !== 0) throw new Error(`${label}: dispatched ${result.dispatched} of ${N}`);
    return [ms, N];
  });
}

const samples = new Map([...measurements.keys()].map((name) => [name, []]));
for (let round = 0; round < WARMUP + REPS; round++) {
  for (const [name, run] of measurements) {
    const [ms, ops] = run();
    if (round >= WARMUP) samples.get(name).push((ms * 1e6) / ops);
  }
}
/** Median ns per operation. */
const median = (name) => {
  const sorted = samples.get(name).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const push = median('push');
const shift = median('shift');
const ns = (x) => `${x.toFixed(x < 100 ? 1 : 0)} ns`;
const perSecond = (x) => `${(1e9 / x / 1e6).toFixed(x < 100 ? 0 : 2)} M`;
const table = [
  ['what', 'per op', 'per second', 'ratio'],
  ['array push (baseline for enqueue)', ns(push), perSecond(push), '1'],
  ['array shift (baseline for dispatch)', ns(shift), perSecond(shift), '1'],
  ...[...measurements.keys()]
    .filter((name) => name !== 'push' && name !== 'shift')
    .map((name) => {
      const [base, baseName] = name.startsWith('enqueue') ? [push, 'push'] : [shift, 'shift'];
      return [name, ns(median(name)), perSecond(median(name)), `${(median(name) / base).toFixed(1)}× ${baseName}`];
    }),
];
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
console.log(`flow control: ${N} requests, ${FAIRNESS_IDS} tenants × ${PRIORITIES.length} bands, median of ${REPS} (node ${process.version})`);
for (const row of table) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '));
if (sink === 0) console.log(); // never true; reading `sink` keeps the work observable
