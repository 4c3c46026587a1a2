// Benchmark: each service's resident memory idle, after a minute of load, and after a minute of rest.
//   npm run build && node tools/bench/service-memory.mjs [--rate 1000] [--seconds 60] [--rest-seconds 60]
//        [--settle-seconds 20] [--service-node-options '--v8-flag …'] [--service-node-args '--v8-flag …'] [--quick] [--json FILE]
// A local cluster as `npm start` starts it (with `sluice up`'s warm-up of 200 requests), with 16
// worker instances at timeScale 1000 as live-path.mjs runs it, on free ports. For every process
// (and the nats-server, for reference) it reads VmRSS from /proc/<pid>/status and, from the
// service's own /metrics, the V8 heap (prom-client's nodejs_heap_size_total_bytes / _used_bytes)
// and the memory V8 counts outside its heap (nodejs_external_memory_bytes: Buffers, TLS):
//   idle        after a 1 s warm-up at 500/s and --settle-seconds of nothing;
//   peak        the highest RSS read during the load (every second);
//   after load  the moment the last request of --seconds at --rate/s is sent (open loop, POST
//               /v1/completions, max_tokens 1, the generator in this process);
//   after rest  --rest-seconds after every request ended.
// It also prints the CPU each process used during the load, so a flag that saves memory by
// collecting more often shows what it costs. --service-node-options sets NODE_OPTIONS for the
// services only (not this process), to try V8 flags on the same build, e.g. as paired A/B runs;
// --service-node-args puts flags on the services' command line after the launcher's own
// (SERVICE_NODE_FLAGS; a later value of a flag wins), for the V8 flags NODE_OPTIONS refuses.
// Goals (issue 40): each service ≤ 200 MB (190.7 MiB) resident after the load, and after the rest
// within 20 % of its idle figure. The goals are judged per service; the nats-server is shown only.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { clearInterval, setInterval, setTimeout } from 'node:timers';
import { FREE_PORT_ARGS, REPO_ROOT, SERVICE_NODE_FLAGS, startLocalCluster } from '@sluice/launcher';
import { completionRequest, cpuMeter, createAgent, fmtMs, isOk, metricSum, rssMiB, runOpenLoop, scrape, stats, table, waitIdle } from './live/load-generator.mjs';
import { buildLabel, commandLine } from './bench-run.mjs';

const { flag, option } = commandLine();
const quick = flag('quick');
const rate = Number(option('rate', 1000));
const seconds = Number(option('seconds', quick ? 10 : 60));
const restSeconds = Number(option('rest-seconds', quick ? 15 : 60));
// Long enough for every service's idle collection (libs/service/src/idle-reclaim.ts: two quiet
// 2 s checks) to take back the warm-up's garbage on a busy machine; 10 s sometimes caught it before.
const settleSeconds = Number(option('settle-seconds', quick ? 10 : 20));
const jsonFile = option('json', undefined);
const serviceNodeOptions = option('service-node-options', undefined);
const serviceNodeArgs = option('service-node-args', '').split(' ').filter(Boolean);
const INSTANCES = 16;
const TIME_SCALE = 1000;
/** 200 MB, the goal's unit, in the MiB this page prints. */
const GOAL_AFTER_LOAD_MIB = 200e6 / 2 ** 20;
const GOAL_REST_RATIO = 1.2;

const MiB = 2 ** 20;
const log = (line) => process.stderr.write(`[service-memory] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmtMiB = (x) => (x === undefined ? '–' : `${x.toFixed(0)}`);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

const build = buildLabel(REPO_ROOT);
log(`starting a cluster: ${INSTANCES} instances, timeScale ${TIME_SCALE}; load average ${load()}`);
let natsPid;
const cluster = await startLocalCluster({
  rootDir: REPO_ROOT,
  onNatsReady: (nats) => (natsPid = nats.pid),
  configArgs: [...FREE_PORT_ARGS, `--worker.instances=${INSTANCES}`, `--worker.timeScale=${TIME_SCALE}`],
  parallel: true,
  warmUpRequests: 200,
  ...(serviceNodeOptions !== undefined ? { env: { NODE_OPTIONS: serviceNodeOptions } } : {}),
  nodeArgs: [...SERVICE_NODE_FLAGS, ...serviceNodeArgs],
});

/** Every process of the cluster: name → { pid, url } (the nats-server without a /metrics). */
function processes() {
  const out = Object.fromEntries(cluster.processes().map((p) => [p.name, { pid: p.pid, url: p.url }]));
  if (natsPid !== undefined) out['nats-server'] = { pid: natsPid };
  return out;
}

/** RSS split into anonymous memory (heap, malloc) and file-backed pages (the node binary, libraries), MiB. */
function rssParts(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
    return { anonMiB: kib('RssAnon'), fileMiB: kib('RssFile') };
  } catch {
    return {};
  }
}

/** One reading of every process: RSS from /proc, heap and external memory from its /metrics. */
async function sample() {
  const out = {};
  await Promise.all(
    Object.entries(processes()).map(async ([name, { pid, url }]) => {
      const reading = { rssMiB: rssMiB(pid), ...rssParts(pid) };
      if (url) {
        try {
          const m = await scrape(url);
          reading.heapTotalMiB = metricSum(m, 'nodejs_heap_size_total_bytes') / MiB;
          reading.heapUsedMiB = metricSum(m, 'nodejs_heap_size_used_bytes') / MiB;
          reading.externalMiB = metricSum(m, 'nodejs_external_memory_bytes') / MiB;
          const spaces = metricSum(m, 'nodejs_heap_space_size_total_bytes', 'space');
          reading.spacesMiB = Object.fromEntries(Object.entries(spaces).map(([space, bytes]) => [space, bytes / MiB]));
          const used = metricSum(m, 'nodejs_heap_space_size_used_bytes', 'space');
          reading.spacesUsedMiB = Object.fromEntries(Object.entries(used).map(([space, bytes]) => [space, bytes / MiB]));
        } catch (err) {
          reading.scrapeError = String(err?.message ?? err);
        }
      }
      out[name] = reading;
    }),
  );
  return out;
}

const results = { benchmark: 'service-memory', build, node: process.version, serviceNodeOptions, serviceNodeFlags: [...SERVICE_NODE_FLAGS, ...serviceNodeArgs], quick, rate, seconds, restSeconds, settleSeconds, instances: INSTANCES, timeScale: TIME_SCALE };
try {
  const url = new URL(cluster.gatewayUrl);
  const request = completionRequest({ maxTokens: 1 });
  const agent = createAgent({ maxSockets: 256 });

  log('warm-up: 1 s at 500/s');
  await runOpenLoop({ url, agent, request, rate: 500, seconds: 1 });
  await waitIdle(cluster.gatewayUrl);
  log(`settling ${settleSeconds} s`);
  await sleep(settleSeconds * 1000);
  const idle = await sample();
  results.loadAverageBefore = loadavg();

  log(`load: ${rate}/s for ${seconds} s`);
  const peak = {};
  const watch = setInterval(() => {
    for (const [name, { pid }] of Object.entries(processes())) peak[name] = Math.max(peak[name] ?? 0, rssMiB(pid) ?? 0);
  }, 1000);
  const stopCpu = cpuMeter(Object.fromEntries(Object.entries(processes()).map(([name, { pid }]) => [name, pid])));
  let cpu;
  let afterLoad;
  let afterLoadTaken;
  const run = await runOpenLoop({
    url,
    agent,
    request,
    rate,
    seconds,
    onSendEnd: () => {
      clearInterval(watch);
      cpu = stopCpu();
      afterLoadTaken = sample().then((s) => (afterLoad = s));
    },
  });
  await afterLoadTaken;
  for (const [name, r] of Object.entries(afterLoad)) peak[name] = Math.max(peak[name] ?? 0, r.rssMiB ?? 0);
  const ok = run.records.filter(isOk);
  const latency = stats(ok.map((r) => r.latencyMs));
  results.load = { sent: run.sent, ok: ok.length, errors: run.sent - ok.length, achievedRate: run.achievedRate, latency, loadAverage: loadavg() };
  log(`  achieved ${run.achievedRate.toFixed(0)}/s, ${run.sent - ok.length} errors, p99 ${fmtMs(latency.p99)}; load average ${load()}`);
  run.records.length = 0; // this process's own memory is not measured, but need not hold them
  agent.destroy();

  await waitIdle(cluster.gatewayUrl, 60_000);
  log(`rest: ${restSeconds} s`);
  await sleep(restSeconds * 1000);
  const afterRest = await sample();
  results.loadAverageAfter = loadavg();

  const restarted = cluster.processes().filter((p) => p.restarts > 0).map((p) => p.name);
  results.restarted = restarted;
  results.samples = { idle, peak, afterLoad, afterRest };
  results.cpuCoresInLoad = cpu;

  // --- the report ----------------------------------------------------------------------------
  const names = Object.keys(idle);
  const services = names.filter((n) => n !== 'nats-server');
  const rows = [['process', 'idle', 'peak in load', 'after load', 'after rest', 'rest ÷ idle', 'heap used / total: idle → load → rest', 'external: idle → load → rest', 'CPU in load, cores']];
  const verdicts = {};
  for (const name of names) {
    const i = idle[name];
    const l = afterLoad[name];
    const r = afterRest[name];
    const ratio = r.rssMiB / i.rssMiB;
    if (name !== 'nats-server') verdicts[name] = { afterLoad: l.rssMiB <= GOAL_AFTER_LOAD_MIB, afterRest: ratio <= GOAL_REST_RATIO };
    const heap = (x) => (x.heapUsedMiB === undefined ? '–' : `${fmtMiB(x.heapUsedMiB)}/${fmtMiB(x.heapTotalMiB)}`);
    rows.push([
      name,
      fmtMiB(i.rssMiB),
      fmtMiB(peak[name]),
      fmtMiB(l.rssMiB),
      fmtMiB(r.rssMiB),
      `${ratio.toFixed(2)}×`,
      `${heap(i)} → ${heap(l)} → ${heap(r)}`,
      i.externalMiB === undefined ? '–' : `${fmtMiB(i.externalMiB)} → ${fmtMiB(l.externalMiB)} → ${fmtMiB(r.externalMiB)}`,
      cpu?.[name] === undefined ? '–' : cpu[name].toFixed(2),
    ]);
  }
  const out = [];
  out.push(`service memory: ${INSTANCES} instances, timeScale ${TIME_SCALE}, ${rate}/s for ${seconds} s (max_tokens 1), rest ${restSeconds} s, build ${build}, node ${process.version}${quick ? ', --quick' : ''}`);
  out.push(`services' node flags: ${results.serviceNodeFlags.join(' ') || '(none)'}`);
  if (serviceNodeOptions !== undefined) out.push(`services' NODE_OPTIONS: ${serviceNodeOptions === '' ? '(empty)' : serviceNodeOptions}`);
  out.push(`load: ${run.sent} sent, ${ok.length} ok, achieved ${run.achievedRate.toFixed(0)}/s, p50 ${fmtMs(latency.p50)}, p99 ${fmtMs(latency.p99)}`);
  out.push(`load average (1, 5, 15 min): before the load ${results.loadAverageBefore.map((x) => x.toFixed(2)).join(' ')}, after it ${results.load.loadAverage.map((x) => x.toFixed(2)).join(' ')}`);
  out.push(`machine CPU during the load (every process on it): ${cpu?.machine?.toFixed(2) ?? '–'} cores`);
  if (restarted.length > 0) out.push(`RESTARTED during the run: ${restarted.join(', ')} (its figures are of the new process)`);
  out.push('');
  out.push('resident memory (VmRSS), MiB; heap and external from each service\'s /metrics, MiB');
  out.push(table(rows));
  out.push('');
  out.push('V8 heap spaces after the load (reserved, MiB): new / old / large object / code / the rest');
  const spaceRows = [['process', 'new', 'old', 'large object', 'code', 'rest']];
  for (const name of services) {
    const sp = afterLoad[name].spacesMiB ?? {};
    const known = ['new', 'old', 'large_object', 'code'];
    const rest = Object.entries(sp).filter(([k]) => !known.includes(k)).reduce((a, [, v]) => a + v, 0);
    spaceRows.push([name, ...known.map((k) => fmtMiB(sp[k])), fmtMiB(rest)]);
  }
  out.push(table(spaceRows));
  out.push('');
  const failedLoad = services.filter((n) => !verdicts[n].afterLoad);
  const failedRest = services.filter((n) => !verdicts[n].afterRest);
  out.push(`goal: each service ≤ 200 MB (${GOAL_AFTER_LOAD_MIB.toFixed(1)} MiB) after the load: ${failedLoad.length === 0 ? 'met' : `not met (${failedLoad.join(', ')})`}`);
  out.push(`goal: each service within 20% of idle after the rest: ${failedRest.length === 0 ? 'met' : `not met (${failedRest.join(', ')})`}`);
  results.goals = { afterLoadMet: failedLoad.length === 0, afterRestMet: failedRest.length === 0, failedLoad, failedRest };
  console.log(out.join('\n'));
  if (jsonFile) {
    writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
    log(`figures written to ${jsonFile}`);
  }
} finally {
  await cluster.stop();
}
