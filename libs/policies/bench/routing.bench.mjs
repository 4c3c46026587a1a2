// Routing decision time, pure code, no I/O:  npm run build && node libs/policies/bench/routing.bench.mjs
// One `route()` call timed on its own (performance.now() before and after), p50 and p99, for
// `weighted` (default weights: prefix-affinity:3, queue-depth:2, kv-utilization:2), `least-loaded`
// and `round-robin`, over 10, 100, 1 000 and 10 000 instances of one model. Requests have 64 blocks; a
// PrefixIndex holds, per instance, two of 64 "system prompt" prefixes of 64 blocks, and each request
// starts with the first 32 blocks of one of them (so ~1/32 of the instances match 32 blocks, the
// rest miss at block 0), then 32 blocks of its own.
// Each policy is timed twice: `route()` alone (the decision: choice and regret), and `route()` plus
// `decision.top(3)`, the three best candidates the router records on the decision's span.
// At the largest size two more lines time the decision as the router makes it: its ClusterState's
// view() alone (the router builds one per decision), and view() + weighted route() + top(3), the
// chosen instance's in-flight count moving after each decision as the router's does.
// Two rows show where weighted's time goes: weighted without its prefix-affinity scorer, and the
// prefix lookups alone (PrefixIndex.matchedBlocksByInstance, the bulk lookup prefix-affinity uses).
// Baseline, same instances, same run, timed the same way: one pass computing the minimum effective
// load (queueDepth + batchSize + inFlight) over the instances array, the least any load-aware
// policy must do. A "timer floor" row (an empty timed region) shows what the timing itself costs.
// Every measurement runs interleaved, ROUND decisions of each per round, so JIT state, GC and a busy
// machine affect all of them alike; the first WARMUP rounds are not counted. The 10 000-instance
// rows run every other round (half the decisions: 3 000 per row, so its p99 is still the 30th
// slowest), which keeps the whole run under a minute.
// Besides the wall clock, the baseline and the policy rows read the process's CPU time around each
// decision (process.cpuUsage, outside the timed region; µs resolution, and it includes V8's helper
// threads), printed at the largest size: on a shared machine a wall-clock p99 is mostly waiting
// for a core, which CPU time leaves out. (Node's per-thread figure only moves in scheduler ticks.)
// `--build DIR` loads the policies from another build of this package (default: ../dist), for
// paired runs of the same bench against the build before a change. `--router-only` times only the
// largest size's baseline, weighted and as-the-router rows (see below for why).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { seededRandom } from '@sluice/collections';

const { values: args } = parseArgs({
  options: {
    build: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
    'router-only': { type: 'boolean', default: false },
  },
});
const { ClusterState, PrefixIndex, createRoutingRegistry } = await import(pathToFileURL(resolve(args.build, 'index.js')).href);

const SIZES = [10, 100, 1_000, 10_000];
/** Sizes from this one up run every other round. */
const HALF_RATE_FROM = 10_000;
/** [label, policy, params] */
const POLICIES = [
  ['weighted', 'weighted', {}],
  ['weighted without prefix-affinity', 'weighted', { weights: 'queue-depth:2,kv-utilization:2' }],
  ['least-loaded', 'least-loaded', {}],
  ['round-robin', 'round-robin', {}],
];
const MODEL = 'qwen3-14b';
const BLOCKS = 64; // per request
const SHARED = 32; // leading blocks a request shares with its prompt family
const FAMILIES = 64;
const FAMILIES_PER_INSTANCE = 2;
const REQUESTS = 1_024;
const ROUND = 50;
const WARMUP = 20;
const ROUNDS = 120; // → 6 000 timed decisions per measurement (3 000 from HALF_RATE_FROM instances up)
const GOAL_MS = 1;

const rand = seededRandom(20_240_601);
const int = (max) => Math.floor(rand() * (max + 1));
// Block ids: family f's block k is f·BLOCKS + k; request r's own blocks come after all families'.
const family = (f) => Array.from({ length: BLOCKS }, (_, k) => f * BLOCKS + k);
const requests = Array.from({ length: REQUESTS }, (_, r) => ({
  id: `r${r}`,
  model: MODEL,
  inputTokens: BLOCKS * 16,
  maxTokens: 128,
  priority: 3,
  sloClass: 'standard',
  fairnessId: 'default',
  blockHashes: [...family(r % FAMILIES).slice(0, SHARED), ...Array.from({ length: BLOCKS - SHARED }, (_, k) => (FAMILIES + r) * BLOCKS + k)],
}));

/** A view of n instances with seeded random loads, and a prefix index with two families each. */
const viewOf = (n) => {
  const prefix = new PrefixIndex();
  const instances = Array.from({ length: n }, (_, i) => {
    const instanceId = `w${Math.floor(i / 8)}/${i % 8}`;
    for (let k = 0; k < FAMILIES_PER_INSTANCE; k++) prefix.record(instanceId, family(int(FAMILIES - 1)));
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
  return { instances, prefix };
};

/**
 * A ClusterState holding the view's instances as a router's does (registered, one snapshot each,
 * the view's in-flight count dispatched there), so `view()` gives back the same signals.
 */
const clusterStateOf = (view) => {
  const state = new ClusterState(3_600_000_000);
  for (const i of view.instances) {
    const { instanceId, workerId, rank, model, totalKvBlocks } = i;
    state.onLifecycle({ type: 'register', instanceId, workerId, rank, model, totalKvBlocks, atUs: 0 });
    state.onSnapshot({
      instanceId, workerId, rank, atUs: 0, totalKvBlocks, freeKvBlocks: totalKvBlocks, cacheHitRate: 0, preemptions: 0,
      queueDepth: i.queueDepth, batchSize: i.batchSize, inFlight: i.inFlight, kvUtilization: i.kvUtilization,
      activePrefillTokens: i.activePrefillTokens, activeDecodeBlocks: i.activeDecodeBlocks,
    });
    for (let r = 0; r < i.inFlight; r++) state.dispatched(instanceId, `${instanceId}#${r}`);
  }
  return state;
};

let sink = 0; // keeps results alive so nothing is optimised away

/**
 * The process's CPU time since `since`, in µs: unlike the wall clock, it does not count time spent
 * waiting for a core, which on a shared machine is most of a p99.
 */
const cpuMicros = (since) => {
  const { user, system } = process.cpuUsage(since);
  return user + system;
};

/** Each measurement: a function timing ROUND decisions into `out` (µs each). */
const measurements = new Map();
for (const n of SIZES) {
  const view = viewOf(n);
  const instances = view.instances;
  let next = 0;
  measurements.set(`baseline/${n}`, (out, cpuOut) => {
    for (let k = 0; k < ROUND; k++) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      let min = Infinity;
      for (let i = 0; i < instances.length; i++) {
        const load = instances[i].queueDepth + instances[i].batchSize + instances[i].inFlight;
        if (load < min) min = load;
      }
      out.push((performance.now() - t) * 1_000);
      cpuOut.push(cpuMicros(cpu));
      sink += min;
    }
  });
  measurements.set(`prefix lookups/${n}`, (out) => {
    for (let k = 0; k < ROUND; k++) {
      const { blockHashes } = requests[next++ % REQUESTS];
      const t = performance.now();
      const matched = view.prefix.matchedBlocksByInstance(blockHashes);
      out.push((performance.now() - t) * 1_000);
      sink += matched.size;
    }
  });
  for (const [name, policyName, params] of POLICIES) {
    const policy = createRoutingRegistry().create(policyName, params, { random: seededRandom(n) });
    measurements.set(`${name}/${n}`, (out, cpuOut) => {
      for (let k = 0; k < ROUND; k++) {
        const request = requests[next++ % REQUESTS];
        const cpu = process.cpuUsage();
        const t = performance.now();
        const decision = policy.route(request, view, 0);
        out.push((performance.now() - t) * 1_000);
        cpuOut.push(cpuMicros(cpu));
        sink += decision.regret + decision.instance.rank;
      }
    });
    const ranking = createRoutingRegistry().create(policyName, params, { random: seededRandom(n) });
    measurements.set(`${name}+ranked/${n}`, (out, cpuOut) => {
      for (let k = 0; k < ROUND; k++) {
        const request = requests[next++ % REQUESTS];
        const cpu = process.cpuUsage();
        const t = performance.now();
        const decision = ranking.route(request, view, 0);
        // What the router records on each decision's span: the top 3 (router.counterfactualK).
        const [best] = decision.top(3);
        out.push((performance.now() - t) * 1_000);
        cpuOut.push(cpuMicros(cpu));
        sink += decision.regret + best.score;
      }
    });
  }
}
// The decision as the router makes it, at the largest size: its ClusterState's view() (every
// instance's age written at each view), then route() and the top 3 for the span. The clock moves
// 1 µs per decision, as a live router's does.
{
  const n = SIZES.at(-1);
  const { prefix, instances } = viewOf(n);
  const state = clusterStateOf({ instances });
  const policy = createRoutingRegistry().create('weighted', {}, { random: seededRandom(n) });
  let nowUs = 1;
  let next = 0;
  measurements.set(`view/${n}`, (out, cpuOut) => {
    for (let k = 0; k < ROUND; k++) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      const view = state.view(nowUs++, prefix);
      out.push((performance.now() - t) * 1_000);
      cpuOut.push(cpuMicros(cpu));
      sink += view.instances.length;
    }
  });
  // After each decision, untimed, the router's own bookkeeping: the chosen instance gets the
  // request in flight and the previous one is reported done, so each view() rebuilds the view of
  // the instances that changed since the last, as the router's does.
  let previous;
  measurements.set(`view+weighted+ranked/${n}`, (out, cpuOut) => {
    for (let k = 0; k < ROUND; k++) {
      const request = requests[next++ % REQUESTS];
      const cpu = process.cpuUsage();
      const t = performance.now();
      const decision = policy.route(request, state.view(nowUs++, prefix), nowUs);
      const [best] = decision.top(3);
      out.push((performance.now() - t) * 1_000);
      cpuOut.push(cpuMicros(cpu));
      sink += decision.regret + best.score;
      if (previous) state.done(previous.instanceId, previous.requestId);
      previous = { instanceId: decision.instance.instanceId, requestId: `${request.id}@${nowUs}` };
      state.dispatched(previous.instanceId, previous.requestId);
    }
  });
}
measurements.set('floor', (out) => {
  for (let k = 0; k < ROUND; k++) {
    const t = performance.now();
    out.push((performance.now() - t) * 1_000);
  }
});

// --router-only: the rows the router's decision is read from, at the largest size, and nothing
// else. Another row's garbage brings collections whose concurrent threads the CPU-time clock
// counts in whichever row is running (least-loaded's and round-robin's typed arrays of 10 000 per
// decision did, old-generation markings every ~300 ms, until those policies reused their arrays).
if (args['router-only']) {
  const kept = new Set(['floor', ...['baseline', 'weighted', 'weighted+ranked', 'view', 'view+weighted+ranked'].map((row) => `${row}/${SIZES.at(-1)}`)]);
  for (const key of [...measurements.keys()]) if (!kept.has(key)) measurements.delete(key);
}
const samples = new Map([...measurements.keys()].map((key) => [key, []]));
const cpuSamples = new Map([...measurements.keys()].map((key) => [key, []]));
const scratch = [];
const sizeOf = (key) => Number(key.slice(key.lastIndexOf('/') + 1)); // NaN for the floor
for (let round = 0; round < WARMUP + ROUNDS; round++) {
  for (const [key, run] of measurements) {
    if (sizeOf(key) >= HALF_RATE_FROM && round % 2 === 1) continue;
    if (round < WARMUP) run(((scratch.length = 0), scratch), scratch);
    else run(samples.get(key), cpuSamples.get(key));
  }
}
const quantile = (key, q, from = samples) => {
  const sorted = from.get(key).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

const us = (x) => (x >= 100 ? `${x.toFixed(0)} µs` : x >= 10 ? `${x.toFixed(1)} µs` : `${x.toFixed(2)} µs`);
const table = [['what', 'instances', 'route() p50', 'p99', 'ratio (p50)', '+ top(3) p50', 'p99']];
const floor = quantile('floor', 0.5);
table.push(['timer floor (empty timed region)', '—', us(floor), us(quantile('floor', 0.99)), '', '', '']);
for (const n of SIZES) {
  if (!samples.has(`baseline/${n}`)) continue; // left out by --router-only
  const base = quantile(`baseline/${n}`, 0.5);
  table.push(['min effective load, one pass (baseline)', `${n}`, us(base), us(quantile(`baseline/${n}`, 0.99)), '1', '', '']);
  const lookups = `prefix lookups/${n}`;
  if (samples.has(lookups)) table.push(['prefix lookups alone (bulk, every instance)', `${n}`, us(quantile(lookups, 0.5)), us(quantile(lookups, 0.99)), `${(quantile(lookups, 0.5) / base).toFixed(0)}×`, '', '']);
  for (const [name] of POLICIES) {
    if (!samples.has(`${name}/${n}`)) continue;
    const p50 = quantile(`${name}/${n}`, 0.5);
    const ranked = `${name}+ranked/${n}`;
    table.push([name, `${n}`, us(p50), us(quantile(`${name}/${n}`, 0.99)), `${(p50 / base).toFixed(0)}×`, us(quantile(ranked, 0.5)), us(quantile(ranked, 0.99))]);
  }
}
const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
console.log(
  `routing decision time: ${BLOCKS}-block requests, ${FAMILIES} prefix families, ${ROUNDS * ROUND} decisions per row after ${WARMUP * ROUND} warm-up ` +
    `(${(ROUNDS * ROUND) / 2} after ${(WARMUP * ROUND) / 2} from ${HALF_RATE_FROM} instances up; node ${process.version}, build ${args.build})`,
);
for (const row of table) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('   '));
const largest = SIZES.at(-1);
const cpuBase = quantile(`baseline/${largest}`, 0.5, cpuSamples);
const asTheRouter = [
  [`view/${largest}`, 'ClusterState.view() alone'],
  [`view+weighted+ranked/${largest}`, 'view() + weighted route() + top(3)'],
];
for (const [key, what] of asTheRouter) console.log(`${what} at ${largest} instances (as the router decides): p50 ${us(quantile(key, 0.5))}, p99 ${us(quantile(key, 0.99))}`);
console.log(`CPU time per decision at ${largest} instances (process.cpuUsage: not counting waits for a core, counting V8's helper threads; 1 µs resolution):`);
for (const [key, what] of [[`baseline/${largest}`, 'min effective load, one pass (baseline)'], [`weighted/${largest}`, 'weighted route()'], [`weighted+ranked/${largest}`, 'weighted route() + top(3)'], ...asTheRouter]) {
  const p50 = quantile(key, 0.5, cpuSamples);
  console.log(`  ${what.padEnd(40)} p50 ${us(p50)}, p99 ${us(quantile(key, 0.99, cpuSamples))}, ratio (p50) ${cpuBase > 0 ? `${(p50 / cpuBase).toFixed(0)}×` : '—'}`);
}
for (const [key, what] of [[`weighted/${largest}`, 'route()'], [`weighted+ranked/${largest}`, 'route() + top(3)'], [`view+weighted+ranked/${largest}`, 'view() + route() + top(3)']]) {
  const p99 = quantile(key, 0.99) / 1_000;
  const cpuP99 = quantile(key, 0.99, cpuSamples) / 1_000;
  console.log(`goal: weighted p99 ≤ ${GOAL_MS} ms at ${largest} instances, ${what}: ${p99.toFixed(3)} ms, ${p99 <= GOAL_MS ? 'met' : 'MISSED'} (CPU time p99 ${cpuP99.toFixed(3)} ms)`);
}
if (sink === 0) console.log(); // never true; reading `sink` keeps the work observable
