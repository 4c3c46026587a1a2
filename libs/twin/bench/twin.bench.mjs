// The twin's speed, pure code, no I/O:  npm run build && node libs/twin/bench/twin.bench.mjs
// Requests simulated per second on one core (one Node thread) by `simulate()`: the live cluster's
// default admission (always-admit) and flow control, `weighted` routing (default weights) and four
// VllmEngine instances of qwen3-14b (the default profile), in virtual time. Goal: 1,000,000
// requests in under 60 s (≥ 16,667 requests/s).
// Workload: Poisson arrivals at AGGREGATE_RATE requests/s, four clients (two tenants, slo_class
// standard) each with its own prefix group: a 128-token shared prefix plus gaussian 384±128 tokens
// of its own (≈ 512±128 input tokens), gaussian 128±32 output tokens. The four instances serve
// ~160–200 requests/s of it before queues build (TTFT p50 ~90 ms at 120, ~240 ms at 160, seconds
// at 200): 120 keeps them busy (~30 running each) but not overloaded.
// Sizes 10,000 and 100,000 requests are run; 1,000,000 only if the 100,000 run projects it under
// MILLION_BUDGET_S (or with TWIN_BENCH_MILLION=1) and the machine has the memory for it (~7 GB
// resident), otherwise the 1,000,000 row is extrapolated linearly from 100,000 and labelled so.
// Baseline, same requests, same run: the least the twin must do for them: turn each prompt into its
// block ids (fastBlockIds, as the twin does) and step four bare VllmEngines, requests dealt round-robin,
// each fed at its arrival time, with no cluster: no hops, admission, flow control, routing,
// snapshots or records. The "twin ÷ baseline" column is the cluster's cost as a multiple of it.
// Generating the workload (`generateWorkloadRequests`, not timed in either) is shown for scale.
// A 2,000-request warm-up of both runs first so that neither pays for the JIT alone.
// TWIN_BENCH_TEN_MILLION=1 adds 10,000,000 requests, streamed (twin-streamed.mjs, in a process of
// its own: the workload read lazily, each record dropped as it settles), without the baseline.
// Each row says its peak resident memory: for the rows run here, this process's peak so far
// (the workload array and the kept records of the largest row so far); for the streamed row, its own.
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { totalmem } from 'node:os';
import { loadProfile } from '@sluice/config';
import { VllmEngine, createLatencyModel } from '@sluice/engine';
import { generateWorkloadRequests } from '@sluice/workload';
import { AGGREGATE_RATE, INSTANCES, benchConfig, benchSpec } from './bench-workload.mjs';
import { fastBlockIds, simulate } from '../dist/index.js';

const SIZES = process.env.TWIN_BENCH_SIZES ? process.env.TWIN_BENCH_SIZES.split(',').map(Number) : [10_000, 100_000];
const MILLION = 1_000_000;
const TEN_MILLION = 10_000_000;
const MILLION_BUDGET_S = 120;
const GOAL_S = 60;
const WARMUP = 2_000;

const config = benchConfig();
const profile = loadProfile(config);
const latency = createLatencyModel(profile.latencyModel, profile);
const totalKvBlocks = config.worker.kvBlocks ?? profile.totalKvBlocks;
const options = { config, profile };

const specOf = benchSpec;

/** The baseline: bare engines, round-robin, fed at arrival; returns requests completed. */
function engineAlone(requests) {
  const engines = Array.from({ length: INSTANCES }, () => new VllmEngine({ model: latency, totalKvBlocks, maxModelLen: Math.min(profile.maxModelLen, config.models[0].maxModelLen), maxRunning: config.worker.maxRunning, maxBatchTokens: config.worker.maxBatchTokens, scheduler: config.worker.scheduler }));
  const dealt = engines.map(() => []);
  requests.forEach((r, i) => dealt[i % INSTANCES].push(r));
  let completed = 0;
  engines.forEach((engine, k) => {
    const mine = dealt[k];
    let next = 0;
    let now = 0;
    while (next < mine.length || engine.hasWork()) {
      while (next < mine.length && mine[next].arrivalMs * 1000 <= now) {
        const r = mine[next++];
        engine.enqueue({ id: `r${r.index}`, inputTokens: r.inputTokens.length, maxTokens: r.maxTokens, blockHashes: fastBlockIds(r.inputTokens), priority: 3 }, now);
      }
      if (engine.canStep(now)) {
        const result = engine.step(now);
        completed += result.completed.length;
        now += result.durationUs;
      } else {
        const arrival = next < mine.length ? mine[next].arrivalMs * 1000 : Infinity;
        now = Math.min(engine.nextReadyUs() ?? Infinity, arrival);
      }
    }
  });
  return completed;
}

const time = (fn) => {
  const t = performance.now();
  const value = fn();
  return { value, s: (performance.now() - t) / 1000 };
};

function measure(n) {
  const generated = time(() => generateWorkloadRequests(specOf(n)));
  const requests = generated.value;
  const baseline = time(() => engineAlone(requests));
  if (baseline.value !== n) throw new Error(`baseline completed ${baseline.value} of ${n}`);
  const twin = time(() => simulate(requests, options));
  const completed = twin.value.records.filter((r) => r.outcome === 'completed').length;
  if (completed !== n) throw new Error(`twin completed ${completed} of ${n}`);
  // A loop, not Math.max(...): a million arguments overflow the stack.
  let lastEndMs = 0;
  for (const r of twin.value.records) lastEndMs = Math.max(lastEndMs, r.endMs);
  const virtualS = lastEndMs / 1000;
  return { n, generateS: generated.s, baselineS: baseline.s, twinS: twin.s, events: twin.value.events, virtualS, peakRssBytes: peakRssBytes() };
}

/** This process's peak resident memory so far (ru_maxrss is in KiB on Linux). */
const peakRssBytes = () => process.resourceUsage().maxRSS * 1024;

/** A streamed run in a child process (twin-streamed.mjs): its own peak memory, its CPU time beside the wall time. */
function measureStreamed(n) {
  const script = fileURLToPath(new URL('./twin-streamed.mjs', import.meta.url));
  const row = JSON.parse(execFileSync(process.execPath, [script, String(n)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
  return { ...row, streamed: true };
}

measure(WARMUP);

const rows = [];
for (const n of SIZES) {
  rows.push(measure(n));
  globalThis.gc?.();
}
let last = rows.at(-1);
let projectedMillionS = (last.twinS * MILLION) / last.n;
// The million peaks at ~7 GB resident (~2.0 GB of it heap, in Node's default limit; the prompts'
// token ids are typed arrays, outside it): on a smaller machine it is extrapolated, and said so.
const MILLION_MEMORY_BYTES = 10 * 2 ** 30;
const roomForMillion = totalmem() >= MILLION_MEMORY_BYTES;
const wantMillion = process.env.TWIN_BENCH_MILLION === '1' || projectedMillionS < MILLION_BUDGET_S;
if (wantMillion && !roomForMillion) console.error(`1,000,000 not run: it needs ~7 GB of memory, this machine has ${(totalmem() / 2 ** 30).toFixed(1)} GiB; extrapolated instead`);
if (wantMillion && roomForMillion) {
  last = measure(MILLION);
  rows.push(last);
  projectedMillionS = last.twinS;
}
else rows.push({ n: MILLION, extrapolated: true, peakRssBytes: undefined, twinS: projectedMillionS, events: (last.events * MILLION) / last.n, baselineS: (last.baselineS * MILLION) / last.n, generateS: (last.generateS * MILLION) / last.n, virtualS: (last.virtualS * MILLION) / last.n });

if (process.env.TWIN_BENCH_TEN_MILLION === '1') rows.push(measureStreamed(TEN_MILLION));

const fmt = (x, d = 0) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
console.log(`twin: ${INSTANCES} instances, router.policy=weighted, default admission and flow control, Poisson ${AGGREGATE_RATE} req/s, inputs ≈512±128, outputs 128±32, 4 prefix groups`);
const header = ['requests', 'virtual time', 'twin wall', 'requests/s', 'events', 'events/s', 'baseline wall', 'baseline req/s', 'twin ÷ baseline', 'generate', '1M projected', 'peak RSS'];
const gib = (bytes) => (bytes === undefined ? '–' : `${fmt(bytes / 2 ** 30, 2)} GiB`);
const table = rows.map((r) => [
  `${fmt(r.n)}${r.extrapolated ? ' (extrapolated)' : r.streamed ? ' (streamed)' : ''}`,
  `${fmt(r.virtualS)} s`,
  `${fmt(r.twinS, 2)} s`,
  fmt(r.n / r.twinS),
  fmt(r.events),
  fmt(r.events / r.twinS),
  r.streamed ? '–' : `${fmt(r.baselineS, 2)} s`,
  r.streamed ? '–' : fmt(r.n / r.baselineS),
  r.streamed ? '–' : `${fmt(r.twinS / r.baselineS, 1)}×`,
  r.streamed ? 'in the run' : `${fmt(r.generateS, 2)} s`,
  `${fmt((r.twinS * MILLION) / r.n, 1)} s`,
  gib(r.peakRssBytes),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
console.log(line(header));
for (const row of table) console.log(line(row));
const verdict = projectedMillionS < GOAL_S ? 'met' : `not met (${fmt(projectedMillionS / GOAL_S, 1)}× too slow; needs ${fmt(MILLION / GOAL_S)} requests/s)`;
const ten = rows.find((r) => r.n === TEN_MILLION);
if (ten) console.log(`${fmt(TEN_MILLION)} streamed: ${fmt(ten.twinS, 1)} s wall (${fmt(ten.cpuS, 1)} s of CPU), peak ${gib(ten.peakRssBytes)} resident; goal ≤ 300 s and ≤ 2 GiB: ${ten.twinS <= 300 ? 'time met' : 'time not met'}, ${ten.peakRssBytes <= 2 * 2 ** 30 ? 'memory met' : 'memory not met'}`);
console.log(`goal: 1,000,000 requests in under ${GOAL_S} s, ${last.n === MILLION ? 'measured' : `projected from ${fmt(last.n)}`}: ${fmt(projectedMillionS, 1)} s, ${verdict}`);
