// Benchmark: the whole live path under open-loop load, against raw NATS measured in the same run.
//   npm run build && node tools/bench/live-path.mjs [--rates 500,1000,2000,5000] [--seconds 10]
//        [--sustain-seconds 30] [--sustain-from 1000] [--n 2000] [--max-sockets 256] [--warmup 200] [--jit-warmup 12000] [--no-sustain]
//        [--idle-gaps 40,1000] [--idle-n 120,40] [--quick] [--json FILE]
// A local cluster as `npm start` starts it (with `sluice up`'s default warm-up of 200 requests
// before it counts as ready; --warmup 0 for a cold start), with 16 worker instances at timeScale
// 1000 (the modelled GPU time ~1000× shorter, so the control plane is what is measured), on free ports.
// 1. baseline: raw NATS request/reply on a nats-server of the run's own (the same binary): sequential
//    round trip (~420 B JSON, as hop-latency.mjs) and throughput with 64 requests in flight;
// 2. the first requests after the cluster reports ready: #1 at once, #2…#10 one after another
//    (this process's HTTP client warmed beforehand against a stand-in server of its own);
// 3. open loop at each rate (POST /v1/completions, max_tokens 1, x-sluice-report-timings: 1):
//    achieved rate, errors, client latency, overhead = client latency − modelled GPU time
//    (prefillMs + decodeMs of the `sluice` extension) and where the overhead goes, stage by stage;
//    CPU per request of the cluster's processes and nats-server (/proc, from the first send until
//    the last answer), against raw request/reply's CPU per round trip at the same rate, measured
//    just before; the overhead's tail against a raw pipeline of HOPS hops through separate
//    processes at the same rate (raw-nats-pipeline.mjs), measured just before too; NATS messages
//    published and delivered per answered request (nats-server's /varz, before and after each rate);
// 4. idle single requests, after IDLE_SETTLE_MS of quiet: one at a time, each after the cluster
//    idled --idle-gaps ms, their overhead against one-way raw NATS transits after the same pause
//    (idle-transit.mjs's measurement), the two alternated in blocks of at most 5, each block's
//    first request and transit uncounted so every counted one follows exactly the pause;
// 5. the highest rate sustained for --sustain-seconds with no error, achieved rate ≥ 97 % of the
//    offered one and p99 ≤ 1 s: from 1000/s up in ×1.25 steps (down if 1000/s already fails).
// Then the goals (live/goals.mjs), each met or not.
// The load generator runs in this process, on the same (2-core) machine as the cluster: its launch
// lag is printed so a generator that fell behind is seen.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster, startNats } from '@sluice/launcher';
import {
  completionRequest,
  countBy,
  cpuMeter,
  cpuUsage,
  createAgent,
  fmtMs,
  isOk,
  outcomeLabel,
  runOpenLoop,
  sendRequest,
  stats,
  table,
  waitIdle,
} from './live/load-generator.mjs';
import { buildLabel, commandLine } from './bench-run.mjs';
import { checkGoals, goalLines, HOPS } from './live/goals.mjs';
import { idleRequests } from './live/idle-requests.mjs';
import { messagesPerRequest, natsMessageCounts } from './live/nats-messages.mjs';
import { benchInferenceRequest, openIdleTransit, openRawCpuProbe, openRawEcho } from './raw-nats.mjs';
import { openRawPipeline } from './raw-nats-pipeline.mjs';

// --- options ---------------------------------------------------------------------------------
const { flag, option } = commandLine();
const quick = flag('quick');
const rates = option('rates', '500,1000,2000,5000').split(',').map(Number).filter((r) => r > 0);
const seconds = Number(option('seconds', quick ? 3 : 10));
const sustainSeconds = Number(option('sustain-seconds', quick ? 5 : 30));
const n = Number(option('n', quick ? 500 : 2000));
const throughputSeconds = quick ? 2 : 5;
const maxSockets = Number(option('max-sockets', 256));
const jsonFile = option('json', undefined);
const sustain = !flag('no-sustain');
/** The sustained search's first rate (it steps ×1.25 up from there, or down if that one fails). */
const sustainFrom = Number(option('sustain-from', 1000));
/** `sluice up`'s default (DEFAULT_WARM_UP_REQUESTS in apps/cli/src/commands/up.command.ts). */
const warmUpRequests = Number(option('warmup', 200));
/** Requests offered before the measured rates, past the services' JIT tier-up (below), and at what rate. */
const jitWarmUpRequests = Number(option('jit-warmup', 12_000));
const JIT_WARM_UP_RATE = 2_000;
/** Pauses before each idle single request, and how many requests (and raw transits) after each: one count per pause (the last one for any further pause). */
const idleGaps = option('idle-gaps', '40,1000').split(',').map(Number).filter((g) => g > 0);
// The judged pause (40 ms) is cheap, so it gets enough samples that its p50 holds still between
// runs (15 in 5 blocks read 1.05× and 3.02× in two runs of one build); each 1 s sample costs 2 s.
const idleNs = option('idle-n', quick ? '60,15' : '120,40').split(',').map(Number);
const idleNAt = (i) => idleNs[Math.min(i, idleNs.length - 1)];
/** The idle requests and their raw transits alternate in blocks of at most this many, and in at least IDLE_MIN_BLOCKS blocks. */
const IDLE_BLOCK_SIZE = 5;
const IDLE_MIN_BLOCKS = 5;
/**
 * Quiet before the idle requests, so they meet the cluster as it stays when idle: each service
 * collects its heap once it has been quiet 4 s after a load (libs/service/src/idle-reclaim.ts),
 * all at about the same moment, and idle requests measured across that moment read a spike while
 * the collections ran and slower requests after them than before (4–5 ms → 5–9 ms overhead p50 at
 * 40 ms pauses, three runs): how many fell on which side decided the figure.
 */
const IDLE_SETTLE_MS = 6_000;
/** The line a service logs when it collects its heap after a load (libs/service/src/idle-reclaim.ts). */
const QUIET_COLLECTION = /quiet after load: heap collected/;
/** Raw request/reply at each rate runs this long for its CPU per round trip. */
const rawCpuSeconds = Math.min(seconds, 5);
/** The raw pipeline at each rate runs this long for its latency (1 000 samples at 500/s in --quick). */
const pipelineSeconds = quick ? 2 : Math.min(seconds, 5);
const INSTANCES = 16;
const TIME_SCALE = 1000;

/** The stage timings in path order; prefill and decode are the modelled GPU time, the rest overhead. */
const STAGES = [
  ['gatewayInMs', 'gateway in (HTTP arrival → handoff)'],
  ['toAdmissionMs', 'bus → admission'],
  ['admissionMs', 'admission'],
  ['toFlowMs', 'bus → flow controller'],
  ['flowQueueMs', 'flow queue'],
  ['toRouterMs', 'bus → router'],
  ['routingMs', 'routing'],
  ['toWorkerMs', 'bus → worker'],
  ['workerQueueMs', 'worker queue'],
  ['prefillMs', 'prefill (modelled GPU)'],
  ['decodeMs', 'decode (modelled GPU)'],
  ['toGatewayMs', 'bus → gateway (end frame)'],
];
const GPU = new Set(['prefillMs', 'decodeMs']);

const build = buildLabel(REPO_ROOT);

const us = (ms) => (ms === undefined || !Number.isFinite(ms) ? '–' : `${(ms * 1000).toFixed(0)} µs`);
const ratio = (x) => (x === undefined || !Number.isFinite(x) ? '–' : `${x.toFixed(2)}×`);
const log = (line) => process.stderr.write(`[live-path] ${line}\n`);

/** Runs the client's request path 300 times against a local server answering as the gateway does (a completion with `sluice`). */
async function warmClient(request) {
  const answer = JSON.stringify({ id: 'cmpl-warm', object: 'text_completion', created: 0, model: 'qwen3-14b', choices: [{ index: 0, text: 'x', logprobs: null, finish_reason: 'length' }], sluice: { timings: {} } });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = createAgent({ maxSockets: 1 });
  const url = new URL(`http://127.0.0.1:${server.address().port}`);
  for (let i = 0; i < 300; i++) await sendRequest({ url, agent, request });
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
}

// --- one open-loop run, summarised ---------------------------------------------------------------
function summarise(run) {
  const { records } = run;
  const ok = records.filter(isOk);
  const errors = countBy(
    records.filter((r) => !isOk(r)),
    outcomeLabel,
  );
  const overheads = [];
  const unaccounted = [];
  const perStage = Object.fromEntries(STAGES.map(([k]) => [k, []]));
  let withoutGpu = 0;
  for (const r of ok) {
    const t = r.sluice?.timings ?? {};
    for (const [k] of STAGES) if (typeof t[k] === 'number') perStage[k].push(t[k]);
    if (typeof t.prefillMs !== 'number' || typeof t.decodeMs !== 'number') {
      withoutGpu += 1;
      continue;
    }
    const overhead = r.latencyMs - t.prefillMs - t.decodeMs;
    overheads.push(overhead);
    let accounted = 0;
    for (const [k] of STAGES) if (!GPU.has(k) && typeof t[k] === 'number') accounted += t[k];
    unaccounted.push(overhead - accounted);
  }
  return {
    rate: run.rate,
    seconds: run.seconds,
    sent: run.sent,
    ok: ok.length,
    achievedRate: run.achievedRate,
    errors,
    errorCount: records.length - ok.length,
    latency: stats(ok.map((r) => r.latencyMs)),
    ttfb: stats(ok.map((r) => r.ttfbMs)),
    launchLag: stats(records.map((r) => r.lagMs)),
    overhead: stats(overheads),
    withoutGpuTimings: withoutGpu,
    stages: Object.fromEntries(STAGES.map(([k]) => [k, stats(perStage[k])])),
    unaccounted: stats(unaccounted),
    drainSeconds: run.drainSeconds,
  };
}

/**
 * CPU per request in µs from the CPU seconds each process used over a run: the cluster's processes
 * summed (`clusterNames`: every service process and nats-server), the generator apart, and the
 * cluster's against HOPS raw request/reply round trips at the same rate (`rawRun`, openRawCpuProbe's).
 */
function cpuPerRequest(cpu, requests, clusterNames, rawRun) {
  const perRequestUs = (s) => (s === undefined ? undefined : (s * 1e6) / requests);
  const byProcessUs = Object.fromEntries(clusterNames.map((name) => [name, perRequestUs(cpu[name])]));
  const values = Object.values(byProcessUs);
  const clusterUs = values.some((v) => v === undefined) ? undefined : values.reduce((a, b) => a + b, 0);
  const rawRoundTripUs = rawRun.us.total;
  return { clusterUs, byProcessUs, generatorUs: perRequestUs(cpu.generator), rawRoundTripUs, rawRoundTripByProcessUs: rawRun.us, rawRoundTripsFailed: rawRun.failed, ratioToRaw: clusterUs / (HOPS * rawRoundTripUs) };
}

// --- the run ---------------------------------------------------------------------------------------
log(`starting a cluster: ${INSTANCES} instances, timeScale ${TIME_SCALE}`);
let natsPid;
/** When each quiet heap collection was logged (performance.now()), to count those that fell on the idle requests. */
const quietCollections = [];
// This process's own HTTP client is warmed against a stand-in server before the cluster starts, so
// #1 measures the cluster's cold start and a new connection, not the first run of the benchmark's
// client code, and follows `sluice up`'s ready at once, as a user's first request would.
await warmClient(completionRequest({ maxTokens: 1 }));
const cluster = await startLocalCluster({
  rootDir: REPO_ROOT,
  onNatsReady: (nats) => (natsPid = nats.pid),
  configArgs: [...FREE_PORT_ARGS, `--worker.instances=${INSTANCES}`, `--worker.timeScale=${TIME_SCALE}`],
  // Its loopback monitoring endpoint, for the messages each request costs (/varz).
  nats: { monitor: true },
  onLine: (_service, line) => void (QUIET_COLLECTION.test(line) && quietCollections.push(performance.now())),
  parallel: true,
  warmUpRequests,
});
const results = { benchmark: 'live-path', build, node: process.version, quick, instances: INSTANCES, timeScale: TIME_SCALE, natsKind: cluster.natsKind, warmUpRequests, warmUp: cluster.warmUp };
/** The raw NATS baselines' own nats-server, kept for the whole run so each baseline is measured next to what it is compared with. */
let baselineNats;
const closeAtEnd = [];
try {
  const url = new URL(cluster.gatewayUrl);
  const request = completionRequest({ maxTokens: 1 });

  // 2. first requests, before anything else touches the cluster (this process's client was warmed
  // before the cluster started).
  const firstAgent = createAgent({ maxSockets: 1 });
  const first = [];
  for (let i = 0; i < 10; i++) first.push(await sendRequest({ url, agent: firstAgent, request }));
  firstAgent.destroy();
  results.firstRequests = first.map((r) => ({ status: r.status ?? r.error, latencyMs: r.latencyMs, timings: r.sluice?.timings }));

  // 1. raw NATS baseline on a nats-server of its own: the same binary and machine as the cluster's,
  // but open, since the cluster's bus admits only its services' identities (nats.auth)
  // and none of them may answer on a subject of the benchmark's. Authorization costs only at connect.
  log(`raw NATS baseline (n=${n}, then ${throughputSeconds} s at 64 in flight)`);
  const payload = JSON.stringify(benchInferenceRequest());
  baselineNats = await startNats({ monitor: true });
  const rawCpu = await openRawCpuProbe(baselineNats.url, baselineNats.pid);
  closeAtEnd.push(rawCpu.close);
  const idleTransit = await openIdleTransit(baselineNats.url);
  closeAtEnd.push(idleTransit.close);
  const echo = await openRawEcho(baselineNats.url);
  const rtt = await echo.sequential(payload, n);
  let replies = 0;
  const tputEnd = performance.now() + throughputSeconds * 1000;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (performance.now() < tputEnd) {
        await echo.roundTrip(payload, 5000);
        replies += 1;
      }
    }),
  );
  await echo.close();
  const raw = { rtt: stats(rtt), throughput: replies / throughputSeconds };
  results.baseline = { rawRoundTripMs: raw.rtt, rawThroughputPerSecond: raw.throughput, payloadBytes: payload.length, inFlight: 64, throughputSeconds };
  const hopsRtt = HOPS * raw.rtt.p50;

  // The raw runs at every rate come first, so the cluster's warm-up and rates follow one
  // another with no pause: a raw run between them left the cluster quiet for seconds before each
  // rate, and a service that has been quiet wakes slowly and may be collecting its heap
  // (libs/service/src/idle-reclaim.ts) just as the load begins (p99 at 500/s read 77–361 ms; 9 and 26 ms
  // in two runs with the rates back to back).
  const rawRuns = new Map();
  for (const rate of rates) {
    log(`raw NATS request/reply CPU: ${rate}/s for ${rawCpuSeconds} s`);
    rawRuns.set(rate, await rawCpu.measure(rate, rawCpuSeconds, payload));
  }
  // The overhead's tail against a raw chain of as many hops, each a process of its own, at the
  // same rate: what this machine's scheduling gives any such chain. Its processes are stopped
  // before the cluster's rates, so they take no share of the machine then.
  const pipelineRuns = new Map();
  const pipeline = await openRawPipeline(baselineNats.url);
  try {
    // Its warm-up, as the cluster has one: freshly forked relays' first second at a rate read a
    // p99 of ~60 ms against 8–17 ms once warm.
    log(`raw NATS ${HOPS}-hop pipeline warm-up: 1 s at 500/s`);
    await pipeline.measure(500, 1, payload);
    for (const rate of rates) {
      log(`raw NATS ${HOPS}-hop pipeline: ${rate}/s for ${pipelineSeconds} s`);
      const before = await natsMessageCounts(baselineNats.monitorUrl);
      const run = await pipeline.measure(rate, pipelineSeconds, payload);
      const messages = messagesPerRequest(before, await natsMessageCounts(baselineNats.monitorUrl), run.answered);
      pipelineRuns.set(rate, { sent: run.sent, answered: run.answered, achievedRate: run.achievedRate, latency: stats(run.latencyMs), messages });
    }
  } finally {
    await pipeline.close();
  }
  // Warm-up (JIT, connection pool), not reported. Long enough for every service's hot path to
  // reach V8's top tier: each service compiles it with TurboFan after ~10 500 requests (measured
  // with --trace-opt, 2026-11-29), all of them at the same request count, and the compiles then
  // held both cores for 100–600 ms: one such stall in a measured rate was its p99.
  const agent = createAgent({ maxSockets });
  log(`warm-up: ${jitWarmUpRequests} requests at ${JIT_WARM_UP_RATE}/s`);
  await runOpenLoop({ url, agent, request, rate: JIT_WARM_UP_RATE, seconds: jitWarmUpRequests / JIT_WARM_UP_RATE });
  await waitIdle(cluster.gatewayUrl);

  // 3. open-loop runs, with the CPU each process used while the load was offered, and per request
  // from the first send until the last answer, against raw request/reply's at the same rate.
  const pids = Object.fromEntries(cluster.processes().map((p) => [p.name, p.pid]));
  if (natsPid !== undefined) pids.nats = natsPid;
  const clusterNames = Object.keys(pids);
  pids.generator = process.pid;
  const runs = [];
  for (const rate of rates) {
    const rawRun = rawRuns.get(rate);
    log(`open loop: ${rate}/s for ${seconds} s`);
    const messagesBefore = await natsMessageCounts(cluster.natsMonitorUrl());
    const stopCores = cpuMeter(pids);
    const stopUsage = cpuUsage(pids);
    let cpu;
    const s = summarise(await runOpenLoop({ url, agent, request, rate, seconds, onSendEnd: () => (cpu = stopCores()) }));
    s.cpuCores = cpu;
    s.cpuPerRequest = cpuPerRequest(stopUsage().cpu, s.sent, clusterNames, rawRun);
    s.messagesPerRequest = messagesPerRequest(messagesBefore, await natsMessageCounts(cluster.natsMonitorUrl()), s.ok);
    s.rawPipeline = pipelineRuns.get(rate);
    runs.push(s);
    log(`  achieved ${s.achievedRate.toFixed(0)}/s, ${s.errorCount} errors, p50 ${fmtMs(s.latency.p50)}, p99 ${fmtMs(s.latency.p99)}, CPU ${us(s.cpuPerRequest.clusterUs / 1000)} per request, ${s.messagesPerRequest?.published.toFixed(1) ?? '–'} messages published per answer`);
    await waitIdle(cluster.gatewayUrl);
    await new Promise((r) => setTimeout(r, 500));
  }
  results.runs = runs;

  // 4. idle single requests against raw transits after the same pause, alternated in blocks so a
  // busy minute on this shared machine falls on both alike.
  const idle = [];
  log(`idle: ${IDLE_SETTLE_MS / 1000} s of quiet first, past the services' heap collections after the load`);
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  for (const [gapIndex, gapMs] of idleGaps.entries()) {
    const startedMs = performance.now();
    const idleN = idleNAt(gapIndex);
    const blockCount = Math.max(IDLE_MIN_BLOCKS, Math.ceil(idleN / IDLE_BLOCK_SIZE));
    log(`idle: ${idleN} raw transits and ${idleN} single requests, each after ${gapMs} ms idle, in ${blockCount} alternating blocks`);
    const rawTransits = [];
    const records = [];
    const blocks = [];
    for (let block = 0; block < blockCount; block++) {
      const size = Math.floor(idleN / blockCount) + (block < idleN % blockCount ? 1 : 0);
      if (size === 0) continue;
      const blockTransits = await idleTransit.measure(gapMs, size);
      const blockRecords = await idleRequests({ url, request, gapMs, n: size });
      rawTransits.push(...blockTransits);
      records.push(...blockRecords);
      blocks.push({ rawTransitMs: blockTransits, overheadMs: blockRecords.map((r) => r.latencyMs - (r.sluice?.timings?.prefillMs ?? 0) - (r.sluice?.timings?.decodeMs ?? 0)) });
    }
    const transits = stats(rawTransits);
    const ok = records.filter((r) => isOk(r) && typeof r.sluice?.timings?.prefillMs === 'number' && typeof r.sluice?.timings?.decodeMs === 'number');
    const overhead = stats(ok.map((r) => r.latencyMs - r.sluice.timings.prefillMs - r.sluice.timings.decodeMs));
    const endedMs = performance.now();
    const collections = quietCollections.filter((t) => t >= startedMs && t <= endedMs).length;
    idle.push({ gapMs, n: idleN, ok: ok.length, overheadMs: overhead, overheadP50Ms: overhead.p50, rawTransitMs: transits, rawTransitP50Ms: transits.p50, quietCollections: collections, blocks });
  }
  results.idle = idle;

  // 4. highest sustained rate.
  const attempts = [];
  let sustained;
  if (sustain) {
    const passes = (s) => s.errorCount === 0 && s.achievedRate >= 0.97 * s.rate && (s.latency.p99 ?? Infinity) <= 1000;
    const tryRate = async (rate) => {
      log(`sustain: ${rate}/s for ${sustainSeconds} s`);
      const s = summarise(await runOpenLoop({ url, agent, request, rate, seconds: sustainSeconds }));
      const ok = passes(s);
      attempts.push({ rate, ok, achievedRate: s.achievedRate, errorCount: s.errorCount, errors: s.errors, latency: s.latency });
      log(`  ${ok ? 'sustained' : 'not sustained'}: achieved ${s.achievedRate.toFixed(0)}/s, ${s.errorCount} errors, p99 ${fmtMs(s.latency.p99)}`);
      await waitIdle(cluster.gatewayUrl, 60_000);
      await new Promise((r) => setTimeout(r, 1000));
      return ok;
    };
    let rate = sustainFrom;
    if (await tryRate(rate)) {
      sustained = rate;
      for (let step = 0; step < 15; step++) {
        rate = Math.round(rate * 1.25);
        if (!(await tryRate(rate))) break;
        sustained = rate;
      }
    } else {
      while (rate > 100) {
        rate = Math.round(rate / 1.25);
        if (await tryRate(rate)) {
          sustained = rate;
          break;
        }
      }
    }
  }
  results.sustain = { seconds: sustainSeconds, startRate: sustainFrom, step: 1.25, highestSustainedRate: sustained, attempts };
  agent.destroy();
  const goals = checkGoals({ runs, sustained, sustainSearched: sustain, rawThroughput: raw.throughput, idle });
  results.goals = goals;

  // --- the report ------------------------------------------------------------------------------
  const out = [];
  out.push(`live path benchmark: ${INSTANCES} instances, timeScale ${TIME_SCALE}, max_tokens 1, build ${build}, node ${process.version}, nats ${cluster.natsKind}${quick ? ', --quick' : ''}`);
  out.push('');
  out.push("baseline: raw NATS request/reply on a nats-server of its own (the cluster's binary), this run");
  out.push(
    table([
      ['round trip, sequential', `p50 ${us(raw.rtt.p50)}`, `p99 ${us(raw.rtt.p99)}`, `n=${n}, ${payload.length} B JSON`],
      ['throughput, 64 in flight', `${raw.throughput.toFixed(0)} replies/s`, '', `${throughputSeconds} s`],
      [`${HOPS} round trips (p50)`, us(hopsRtt), '', 'one per hop of the path'],
    ]),
  );
  out.push('');
  const l1 = first[0].latencyMs;
  const l10 = first[9].latencyMs;
  const warmed = cluster.warmUp ? `after a warm-up of ${warmUpRequests} requests (${cluster.warmUp.ok} ok, ${cluster.warmUp.failed} failed, ${cluster.warmUp.ms.toFixed(0)} ms)` : 'cold: no warm-up';
  out.push(`first requests after the cluster reports ready, ${warmed} (sequential, one new keep-alive connection)`);
  out.push(
    table([
      ['#1', '#2', '#3', '#5', '#10', '#1 − #10', 'goal'],
      [fmtMs(l1), fmtMs(first[1].latencyMs), fmtMs(first[2].latencyMs), fmtMs(first[4].latencyMs), fmtMs(l10), fmtMs(l1 - l10), `≤ 2 ms: ${l1 - l10 <= 2 ? 'met' : 'not met'}`],
    ]),
  );
  const t1 = first[0].sluice?.timings;
  if (t1) out.push(`  #1's stages: ${STAGES.filter(([k]) => typeof t1[k] === 'number').map(([k]) => `${k} ${t1[k].toFixed(2)}`).join(', ')}`);
  out.push('');
  const head = ['open loop, offered', ...runs.map((s) => `${s.rate}/s`)];
  const rows = [head];
  rows.push(['achieved (good answers/s)', ...runs.map((s) => `${s.achievedRate.toFixed(0)}/s`)]);
  rows.push(['errors', ...runs.map((s) => (s.errorCount === 0 ? '0' : Object.entries(s.errors).map(([k, v]) => `${v}× ${k}`).join(', ')))]);
  rows.push(['client latency p50', ...runs.map((s) => fmtMs(s.latency.p50))]);
  rows.push(['client latency p99', ...runs.map((s) => fmtMs(s.latency.p99))]);
  rows.push(['generator launch lag p99', ...runs.map((s) => fmtMs(s.launchLag.p99))]);
  rows.push(['overhead p50', ...runs.map((s) => fmtMs(s.overhead.p50))]);
  rows.push(['overhead p99', ...runs.map((s) => fmtMs(s.overhead.p99))]);
  rows.push([`overhead p50 / ${HOPS} raw RTT`, ...runs.map((s) => ratio(s.overhead.p50 / hopsRtt))]);
  rows.push([`raw ${HOPS}-hop pipeline, same rate: p50`, ...runs.map((s) => fmtMs(s.rawPipeline?.latency.p50))]);
  rows.push([`raw ${HOPS}-hop pipeline, same rate: p99`, ...runs.map((s) => fmtMs(s.rawPipeline?.latency.p99))]);
  rows.push(['  its achieved rate', ...runs.map((s) => (s.rawPipeline ? `${s.rawPipeline.achievedRate.toFixed(0)}/s` : '–'))]);
  rows.push([`overhead p99 / raw pipeline p99`, ...runs.map((s) => ratio(s.overhead.p99 / s.rawPipeline?.latency.p99))]);
  const perRequest = (m, key) => (m === undefined ? '–' : m[key].toFixed(1));
  rows.push(['NATS messages per answered request', ...runs.map(() => '')]);
  rows.push(['  cluster: published / delivered', ...runs.map((s) => `${perRequest(s.messagesPerRequest, 'published')} / ${perRequest(s.messagesPerRequest, 'delivered')}`)]);
  rows.push([`  raw ${HOPS}-hop pipeline: published / delivered`, ...runs.map((s) => `${perRequest(s.rawPipeline?.messages, 'published')} / ${perRequest(s.rawPipeline?.messages, 'delivered')}`)]);
  rows.push([`  ${HOPS} raw round trips`, ...runs.map(() => `${2 * HOPS} / ${2 * HOPS}`)]);
  rows.push(['stage p50 / p99', ...runs.map(() => '')]);
  const fmtStage = (ms) => fmtMs(ms, ms !== undefined && Math.abs(ms) < 1 ? 3 : undefined);
  for (const [k, label] of STAGES) {
    rows.push([`  ${label}`, ...runs.map((s) => (s.stages[k].n === 0 ? '–' : `${fmtStage(s.stages[k].p50)} / ${fmtStage(s.stages[k].p99)}`))]);
  }
  rows.push(['  unaccounted (overhead − stages)', ...runs.map((s) => `${fmtStage(s.unaccounted.p50)} / ${fmtStage(s.unaccounted.p99)}`)]);
  rows.push([`CPU while offered, cores (of ${availableParallelism()})`, ...runs.map(() => '')]);
  for (const name of [...Object.keys(pids), 'machine']) rows.push([`  ${name === 'machine' ? 'machine (every process on it)' : name}`, ...runs.map((s) => (s.cpuCores?.[name] === undefined ? '–' : s.cpuCores[name].toFixed(2)))]);
  rows.push(['CPU per request, first send → last answer', ...runs.map(() => '')]);
  rows.push(['  cluster: services + nats-server', ...runs.map((s) => us(s.cpuPerRequest.clusterUs / 1000))]);
  rows.push(['  generator (not in the sum)', ...runs.map((s) => us(s.cpuPerRequest.generatorUs / 1000))]);
  rows.push(['  raw round trip, same rate (all 3 processes)', ...runs.map((s) => us(s.cpuPerRequest.rawRoundTripUs / 1000))]);
  rows.push([`  cluster / ${HOPS} raw round trips`, ...runs.map((s) => ratio(s.cpuPerRequest.ratioToRaw))]);
  out.push(table(rows));
  out.push('  achieved: good answers that ended within the offered window, per second; latency and overhead count from each request\'s scheduled send');
  out.push(`  raw ${HOPS}-hop pipeline: this process → ${HOPS - 1} relay processes in a chain → back, each forward but the last acked, open loop, ${pipelineSeconds} s a rate, before the warm-up; latency from the scheduled send`);
  out.push('  messages: nats-server /varz in_msgs (published) and out_msgs (delivered) over the rate, first send to last answer, background traffic included, per answered request');
  if (runs.some((s) => s.errors.DEADLINE)) out.push('  DEADLINE: no answer within 30 s of the scheduled send (the client gave up and closed the connection)');
  const absent = STAGES.filter(([k]) => runs.every((s) => s.stages[k].n === 0)).map(([k]) => k);
  if (absent.length > 0) out.push(`  fields absent from every answer (their time is in "unaccounted"): ${absent.join(', ')}`);
  out.push('');
  if (sustain) {
    out.push(`highest rate sustained for ${sustainSeconds} s with no error (from ${sustainFrom}/s in ×1.25 steps; a step fails on any error, achieved < 97 %, or p99 > 1 s)`);
    out.push(
      table([
        ['tried', ...attempts.map((a) => `${a.rate}/s`)],
        ['result', ...attempts.map((a) => (a.ok ? 'ok' : a.errorCount > 0 ? `${a.errorCount} err` : a.latency.p99 > 1000 ? 'p99 > 1 s' : 'achieved < 97 %'))],
        ['achieved', ...attempts.map((a) => `${a.achievedRate.toFixed(0)}/s`)],
        ['p99', ...attempts.map((a) => fmtMs(a.latency.p99))],
      ]),
    );
    out.push(
      sustained === undefined
        ? '  no rate sustained'
        : `  sustained ${sustained}/s = ${ratio(sustained / raw.throughput)} raw NATS request/reply throughput (${raw.throughput.toFixed(0)}/s)`,
    );
  }
  out.push('');
  out.push(`idle single requests, one at a time on one connection, against one-way raw NATS transits (~2 KB) after the same pause, alternated in blocks of ≤ ${IDLE_BLOCK_SIZE}`);
  out.push(
    table([
      ['idle before each', ...idle.map((p) => `${p.gapMs} ms`)],
      ['overhead p50 / p99', ...idle.map((p) => `${fmtMs(p.overheadMs.p50)} / ${fmtMs(p.overheadMs.p99)}`)],
      ['raw transit p50 / p99', ...idle.map((p) => `${us(p.rawTransitMs.p50)} / ${us(p.rawTransitMs.p99)}`)],
      [`overhead p50 / ${HOPS} raw transits`, ...idle.map((p) => ratio(p.overheadP50Ms / (HOPS * p.rawTransitP50Ms)))],
      ['answered 200 (n each)', ...idle.map((p) => `${p.ok} of ${p.n}`)],
      ['quiet heap collections logged meanwhile', ...idle.map((p) => String(p.quietCollections))],
    ]),
  );
  out.push('');
  out.push(`goals (build ${build}; baselines from this run)`);
  out.push(...goalLines(goals));
  console.log(out.join('\n'));
  if (jsonFile) {
    writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
    log(`figures written to ${jsonFile}`);
  }
} finally {
  for (const close of closeAtEnd) await close();
  await baselineNats?.stop();
  await cluster.stop();
}
