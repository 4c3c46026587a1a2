// Benchmark (the overload goal): twice the cluster's capacity, offered open loop, and what the gateway does with it.
//   npm run build && node tools/bench/overload.mjs [--seconds 60] [--capacity N] [--capacity-concurrency 64,256,1024,4096]
//        [--capacity-seconds 10] [--generators 2] [--quick] [--json FILE]
// Not part of `npm run bench` (it runs for minutes and saturates the machine on purpose).
// A local cluster in the DEFAULT configuration (only FREE_PORT_ARGS): 1 worker process × 4
// instances at timeScale 1, round-robin, flow control with the utilization detector, queue TTL 60 s.
// 1. capacity: closed loop of streamed 64-token completions at rising concurrency (64, 256, 1024,
//    4096; stops when a level adds < 10 %; the first 3 s of each level not counted), the best
//    completions/s; or given with --capacity N;
// 2. 2× that, open loop, streamed `max_tokens: 64` completions for --seconds, from --generators
//    child processes (default 2: each has its own file descriptors, so the client is not what runs
//    out of them first); every outstanding request has its own connection (an unbounded
//    keep-alive pool), so the gateway sees the whole offered load rather than a client-side queue;
//    each request is given up after gateway.requestTimeoutMs + 30 s;
// 3. meanwhile, a monitor process (so neither the generators' busy event loops nor their file
//    descriptors count) GETs /metrics, /v1/models and /healthz on the gateway every 100 ms each,
//    each on a new connection, and samples every 250 ms the gateway's RSS (/proc/<pid>/status
//    VmRSS), its open file descriptors and every process's CPU time;
// 4. the gateway's RSS before the load, at its peak and 20 s after the offered load stops; and
//    its own books (sluice_requests_received_total, sluice_requests_total by reason) against what
//    the client sent and saw.
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { buildLabel, commandLine } from './bench-run.mjs';
import {
  completionRequest,
  countBy,
  cpuSeconds,
  createAgent,
  machineBusySeconds,
  fmtMs,
  isOk,
  isTcpFailure,
  metricSum,
  outcomeLabel,
  parseMetrics,
  probe,
  rssMiB,
  runClosedLoop,
  runOpenLoopForked,
  scrape,
  stats,
  table,
  waitIdle,
} from './live/load-generator.mjs';

const wallMs = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PROBED = ['/metrics', '/v1/models', '/healthz'];
const PROBE_EVERY_MS = 100;
const PROBE_TIMEOUT_MS = 10_000;
/**
 * What a TTL eviction may add to the TTL, seen from the client: the TTL counts from the request's
 * arrival at the gateway (docs/behaviour.md §3), so the client's way in and the 503's way back come
 * on top. The probes' budget, 100 ms, is the allowance.
 */
const TTL_PATH_MS = 100;
/**
 * The generators' scheduling priority (nice 10): on one 2-core machine the clients compete with
 * the cluster for the CPU, and a gateway waiting behind its own load generator for a time slice
 * measured the generators, not itself. With the clients elsewhere the cluster would have the
 * machine; at nice 10 it has it first. The monitor keeps the default priority: its probes are the
 * measurement.
 */
const GENERATOR_NICE = 10;

// --- the monitor child: probes each endpoint every 100 ms, samples /proc every 250 ms, until told to stop
if (process.argv[2] === 'monitor-child') {
  const base = process.argv[3];
  const pids = JSON.parse(process.argv[4]);
  const probes = [];
  const samples = [];
  // The monitor's own event-loop delay: a probe's time includes it, so a stalled monitor shows here, not as the gateway's.
  const ownLag = monitorEventLoopDelay({ resolution: 5 });
  ownLag.enable();
  const ownLags = [];
  let outstanding = 0;
  const timers = PROBED.map((path) =>
    setInterval(() => {
      const at = wallMs();
      outstanding += 1;
      probe(`${base}${path}`, { timeoutMs: PROBE_TIMEOUT_MS, agent: false }).then((r) => {
        outstanding -= 1;
        const record = { path, at, ms: r.ms, connectMs: r.connectMs, status: r.status, error: r.error };
        // prom-client's event-loop delay of the gateway, over the time since the last scrape.
        if (path === '/metrics' && r.status === 200) record.loopDelayMaxMs = 1000 * metricSum(parseMetrics(r.text), 'nodejs_eventloop_lag_max_seconds');
        probes.push(record);
      });
    }, PROBE_EVERY_MS),
  );
  // /proc reads that grow with the connections (thousands of fds and sockets under this load)
  // are asynchronous: read synchronously they stalled this process for hundreds of ms, and every
  // probe in flight meanwhile measured the stall (p99 830 ms here while curl saw ≤ 130 ms).
  const sample = async () => {
    let fds;
    try {
      fds = (await readdir(`/proc/${pids.gateway}/fd`)).length;
    } catch {
      fds = undefined;
    }
    const cpu = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    cpu.machine = machineBusySeconds();
    samples.push({ at: wallMs(), rssMiB: rssMiB(pids.gateway), fds, cpu });
  };
  // The gateway's listening socket in /proc/net/tcp: for a LISTEN socket, rx_queue is the accept
  // queue (connections the kernel completed that the process has not accepted yet) and tx_queue
  // its limit, the listen backlog the process asked for capped by net.core.somaxconn (Linux holds
  // one more).
  const portHex = Number(new URL(base).port).toString(16).toUpperCase().padStart(4, '0');
  const listenQueues = [];
  const sampleListen = async () => {
    try {
      for (const line of (await readFile('/proc/net/tcp', 'utf8')).split('\n')) {
        const f = line.trim().split(/\s+/);
        if (f[3] === '0A' && f[1]?.endsWith(`:${portHex}`)) {
          const [limit, queued] = f[4].split(':').map((hex) => parseInt(hex, 16));
          listenQueues.push({ at: wallMs(), queued, limit });
          return;
        }
      }
    } catch {
      // not Linux, or gone
    }
  };
  await sample();
  await sampleListen();
  const sampleOwnLag = () => {
    ownLags.push({ at: wallMs(), maxMs: ownLag.max / 1e6 });
    ownLag.reset();
  };
  timers.push(setInterval(sample, 250), setInterval(sampleListen, 1000), setInterval(sampleOwnLag, 100));
  pids.monitor = process.pid;
  process.on('message', async (m) => {
    if (m?.pids) Object.assign(pids, m.pids);
    if (m !== 'stop') return;
    timers.forEach(clearInterval);
    await sample();
    while (outstanding > 0) await sleep(50); // the last probes end or time out
    process.send({ probes, samples, listenQueues, ownLags }, () => process.exit(0));
  });
  process.send('ready');
} else {
  await main();
}

async function main() {
  const { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } = await import('@sluice/launcher');
  const { flag, option } = commandLine();
  const quick = flag('quick');
  const seconds = Number(option('seconds', quick ? 10 : 60));
  const capacityGiven = option('capacity', undefined) === undefined ? undefined : Number(option('capacity'));
  const capacityLevels = option('capacity-concurrency', quick ? '64,256,1024' : '64,256,1024,4096').split(',').map(Number).filter((c) => c > 0);
  const capacitySeconds = Number(option('capacity-seconds', quick ? 3 : 10));
  const capacityWarmup = Math.min(3, capacitySeconds / 3);
  const generators = Number(option('generators', 2));
  const afterSeconds = 20;
  const jsonFile = option('json', undefined);
  const log = (line) => process.stderr.write(`[overload] ${line}\n`);
  const build = buildLabel(REPO_ROOT);

  log('starting a cluster in the default configuration');
  let natsPid;
  const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS], parallel: true, onNatsReady: (nats) => (natsPid = nats.pid) });
  let monitor;
  try {
    const { config } = cluster;
    const instances = config.worker.processes * config.worker.instances;
    const ttlMs = config.flowController.defaultRequestTTL;
    const requestTimeoutMs = config.gateway.requestTimeoutMs;
    const gateway = () => cluster.processes().find((p) => p.name === 'gateway');
    const url = new URL(cluster.gatewayUrl);
    const requestOptions = { maxTokens: 64, stream: true };
    const request = completionRequest(requestOptions);
    const results = {
      benchmark: 'overload', build, node: process.version, quick,
      config: { workerProcesses: config.worker.processes, instancesPerProcess: config.worker.instances, instances, timeScale: config.worker.timeScale, queueTtlMs: ttlMs, requestTimeoutMs, flowMaxRequests: config.flowController.maxRequests },
      rssAtStartMiB: rssMiB(gateway().pid),
    };

    // 1. capacity.
    let capacity = capacityGiven;
    const levels = [];
    if (capacity === undefined) {
      const agent = createAgent({ maxSockets: Infinity });
      for (const concurrency of capacityLevels) {
        log(`capacity: closed loop, ${concurrency} concurrent, ${capacitySeconds} s`);
        const run = await runClosedLoop({ url, agent, request, concurrency, seconds: capacitySeconds, warmupSeconds: capacityWarmup, deadlineMs: requestTimeoutMs + 30_000 });
        const failed = run.records.filter((r) => !isOk(r));
        const errors = countBy(failed, outcomeLabel);
        levels.push({ concurrency, completionsPerSecond: run.completionsPerSecond, errors, errorCount: failed.length, latency: stats(run.records.filter(isOk).map((r) => r.latencyMs)) });
        log(`  ${run.completionsPerSecond.toFixed(1)} completions/s, ${failed.length} errors ${JSON.stringify(errors)}`);
        await waitIdle(cluster.gatewayUrl, 60_000);
        const best = Math.max(...levels.slice(0, -1).map((l) => l.completionsPerSecond), 0);
        if (levels.length > 1 && run.completionsPerSecond < best * 1.1) break;
      }
      agent.destroy();
      capacity = Math.max(...levels.map((l) => l.completionsPerSecond));
    }
    const rate = Math.round(2 * capacity);
    results.capacity = { completionsPerSecond: capacity, given: capacityGiven !== undefined, levels, seconds: capacitySeconds };
    log(`capacity ${capacity.toFixed(1)}/s → offering ${rate}/s for ${seconds} s`);

    // 2–4. the overload.
    await sleep(2000);
    const gatewayBefore = gateway();
    const before = await scrape(cluster.gatewayUrl);
    const pids = Object.fromEntries(cluster.processes().map((p) => [p.name, p.pid]));
    if (natsPid !== undefined) pids.nats = natsPid;
    monitor = fork(fileURLToPath(import.meta.url), ['monitor-child', cluster.gatewayUrl, JSON.stringify(pids)]);
    await new Promise((resolve) => monitor.once('message', resolve));
    await sleep(1000); // a few samples before the load
    let progressNow = { launched: 0, ended: 0 };
    let loadEnd;
    let pendingAfter;
    const progress = setInterval(() => log(`  ${progressNow.launched} sent, ${progressNow.launched - progressNow.ended} outstanding, gateway RSS ${rssMiB(gateway().pid)?.toFixed(0)} MiB`), 10_000);
    const run = await runOpenLoopForked({
      processes: generators, url: cluster.gatewayUrl, requestOptions, rate, seconds, deadlineMs: requestTimeoutMs + 30_000, nice: GENERATOR_NICE,
      onStart: (children) => monitor.send({ pids: children }),
      onProgress: (p) => (progressNow = p),
      onSendEnd: () => {
        loadEnd = wallMs();
        setTimeout(() => {
          pendingAfter = progressNow.launched - progressNow.ended;
          log(`  ${afterSeconds} s after the load stopped: ${pendingAfter} requests unanswered yet`);
        }, afterSeconds * 1000);
      },
    });
    clearInterval(progress);
    const loadStart = run.t0Wall;
    // The reading 20 s after the load stopped, if the requests ended before that.
    await sleep(Math.max(0, loadEnd + afterSeconds * 1000 - wallMs()) + 300);
    pendingAfter ??= 0;
    monitor.send('stop');
    const { probes, samples, listenQueues, ownLags } = await new Promise((resolve) => monitor.once('message', resolve));
    if (process.env.OVERLOAD_DUMP_PROBES) writeFileSync(process.env.OVERLOAD_DUMP_PROBES, JSON.stringify({ probes, ownLags, loadStartAt: run.t0Wall, loadEnd }));
    monitor = undefined;
    const inFlightLeft = await waitIdle(cluster.gatewayUrl, 30_000);
    const after = await scrape(cluster.gatewayUrl);
    const gatewayAfter = gateway();

    // --- figures -------------------------------------------------------------------------------
    const { records } = run;
    const outcomes = countBy(records, outcomeLabel);
    const tcp = records.filter(isTcpFailure);
    const tcpByCode = countBy(tcp, (r) => (r.status !== undefined ? `${r.status} then ${r.error}` : r.error));
    const clientSide = tcp.filter((r) => ['EMFILE', 'ENFILE', 'EADDRNOTAVAIL', 'ENOBUFS'].includes(r.error)).length;
    const shed = records.filter((r) => (r.status === 429 || r.status === 503) && r.error === undefined && !r.streamError);
    // From the moment the request left the client: a generator that launched it late (it runs at
    // a lower priority) is not the cluster's delay.
    const shedTime = stats(shed.map((r) => r.latencyMs - r.lagMs));
    const unanswered = records.filter((r) => r.error === 'DEADLINE').length;
    // Requests with no HTTP answer at all, by why: they may never have been accepted by the gateway.
    const noAnswer = countBy(
      records.filter((r) => r.status === undefined),
      (r) => r.error,
    );
    const ok = records.filter(isOk);
    const terminalBefore = metricSum(before, 'sluice_requests_total', 'reason');
    const terminalAfter = metricSum(after, 'sluice_requests_total', 'reason');
    const terminalDelta = {};
    for (const [reason, v] of Object.entries(terminalAfter)) {
      const d = v - (terminalBefore[reason] ?? 0);
      if (d !== 0) terminalDelta[reason] = d;
    }
    const countedTotal = Object.values(terminalDelta).reduce((a, b) => a + b, 0);
    const receivedDelta = metricSum(after, 'sluice_requests_received_total') - metricSum(before, 'sluice_requests_received_total');
    const inFlightAfter = metricSum(after, 'sluice_requests_in_flight');
    const probeStats = {};
    let loopDelay;
    for (const path of PROBED) {
      const during = probes.filter((s) => s.path === path && s.at >= loadStart && s.at <= loadEnd);
      const failed = during.filter((s) => s.status !== 200);
      if (path === '/metrics') loopDelay = stats(during.map((s) => s.loopDelayMaxMs));
      probeStats[path] = {
        n: during.length,
        failures: failed.length,
        failuresBy: countBy(failed, (s) => s.error ?? String(s.status)),
        duringLoad: stats(during.map((s) => s.ms)),
        connectDuringLoad: stats(during.filter((s) => s.connectMs !== undefined).map((s) => s.connectMs)),
        answered: stats(during.filter((s) => s.status === 200).map((s) => s.ms)),
        afterLoad: stats(probes.filter((s) => s.path === path && s.at > loadEnd).map((s) => s.ms)),
      };
    }
    const nearest = (t) => samples.reduce((best, s) => (Math.abs(s.at - t) < Math.abs(best.at - t) ? s : best), samples[0]);
    const sampleBefore = nearest(loadStart - 100);
    const sampleAfter = nearest(loadEnd + afterSeconds * 1000);
    const sampleLoadEnd = nearest(loadEnd);
    const inRun = samples.filter((s) => s.at >= loadStart);
    const rssBefore = sampleBefore.rssMiB;
    const rssPeak = Math.max(...inRun.map((s) => s.rssMiB ?? 0));
    const rssAfter = sampleAfter.rssMiB;
    // The level before any load: the capacity runs, when the bench measures the capacity itself,
    // come right before the overload and leave the heap at their own peak.
    const rssPreLoad = results.rssAtStartMiB ?? rssBefore;
    const fdsPeak = Math.max(...inRun.map((s) => s.fds ?? 0));
    const cpu = {};
    for (const name of Object.keys(sampleLoadEnd.cpu)) {
      const a = nearest(loadStart).cpu[name];
      const b = sampleLoadEnd.cpu[name];
      cpu[name] = a === undefined || b === undefined ? undefined : (b - a) / ((sampleLoadEnd.at - nearest(loadStart).at) / 1000);
    }
    const gatewayRestarts = gatewayAfter.restarts - gatewayBefore.restarts;
    const listenDuring = listenQueues.filter((q) => q.at >= loadStart && q.at <= loadEnd);
    const listenQueue = { ...stats(listenDuring.map((q) => q.queued)), limit: listenQueues[0]?.limit };
    const fullShare = listenDuring.length === 0 ? undefined : listenDuring.filter((q) => q.queued > q.limit).length / listenDuring.length;
    Object.assign(results, {
      offeredRate: rate,
      seconds,
      sent: run.sent,
      answeredOk: ok.length,
      outcomes,
      tcpFailures: { total: tcp.length, clientSide, byCode: tcpByCode },
      shedTimeMs: shedTime,
      unanswered,
      noHttpAnswer: noAnswer,
      unansweredAfterLoadStop: { seconds: afterSeconds, count: pendingAfter },
      okLatencyMs: stats(ok.map((r) => r.latencyMs)),
      okTtfbMs: stats(ok.map((r) => r.ttfbMs)),
      launchLagMs: stats(records.map((r) => r.lagMs)),
      drainSeconds: run.drainSeconds,
      probes: probeStats,
      generators,
      loadWindowWallMs: { loadStart, loadEnd },
      cpuCoresDuringLoad: cpu,
      gatewayRestarts,
      gatewayEventLoopDelayMaxMs: loopDelay,
      gatewayListenQueue: { ...listenQueue, fullShareOfSamples: fullShare },
      gatewayFds: { before: sampleBefore.fds, peak: fdsPeak, afterLoad: sampleAfter.fds },
      rssMiB: { atStart: results.rssAtStartMiB, before: rssBefore, peak: rssPeak, afterLoad: rssAfter, afterSeconds },
      gatewayCounted: { terminalByReason: terminalDelta, terminalTotal: countedTotal, received: receivedDelta, inFlightAtEnd: inFlightAfter, waitIdleLeft: inFlightLeft },
    });

    // --- the report ----------------------------------------------------------------------------
    const out = [];
    const verdict = (okay) => (okay ? 'met' : 'NOT met');
    out.push(`overload benchmark: default configuration (${config.worker.processes} worker process × ${config.worker.instances} instances = ${instances}, timeScale ${config.worker.timeScale}), build ${build}, node ${process.version}${quick ? ', --quick' : ''}`);
    out.push(`config: flow queue TTL (flowController.defaultRequestTTL) ${ttlMs} ms; gateway.requestTimeoutMs ${requestTimeoutMs} ms; flowController.maxRequests ${config.flowController.maxRequests} (0 = no limit)`);
    out.push('');
    if (levels.length > 0) {
      out.push(`capacity: closed loop, streamed max_tokens 64, ${capacitySeconds} s per level`);
      out.push(table([['concurrency', ...levels.map((l) => String(l.concurrency))], ['completions/s', ...levels.map((l) => l.completionsPerSecond.toFixed(1))], ['p50 latency', ...levels.map((l) => fmtMs(l.latency.p50))], ['errors', ...levels.map((l) => (l.errorCount === 0 ? '0' : Object.entries(l.errors).map(([k, v]) => `${v}× ${k}`).join(', ')))]]));
    }
    out.push(`capacity ${capacity.toFixed(1)}/s${capacityGiven !== undefined ? ' (given)' : ''} → offered ${rate}/s (2.00×) open loop for ${seconds} s: ${run.sent} requests from ${generators} generator processes, launch lag p99 ${fmtMs(results.launchLagMs.p99)}`);
    out.push(`CPU during the load, cores (the machine has ${availableParallelism()}; "machine" is every process on it, ours or not): ${Object.entries(cpu).map(([k, v]) => `${k} ${v?.toFixed(2) ?? '–'}`).join(', ')}`);
    out.push(`gateway event-loop delay (its nodejs_eventloop_lag_max_seconds, per 100 ms scrape) during the load: p50 ${fmtMs(loopDelay?.p50)}, p99 ${fmtMs(loopDelay?.p99)}, max ${fmtMs(loopDelay?.max)}`);
    out.push(`gateway accept queue (its listening socket's, /proc/net/tcp, each second of the load): p50 ${listenQueue.p50 ?? '–'}, max ${listenQueue.max ?? '–'} with a backlog of ${listenQueue.limit ?? '–'}; full in ${fullShare === undefined ? '–' : `${(100 * fullShare).toFixed(0)} %`} of the samples`);
    out.push(`gateway open file descriptors: ${sampleBefore.fds} before, peak ${fdsPeak}, ${sampleAfter.fds} ${afterSeconds} s after the load (limit: ulimit -n, inherited); gateway restarts during the run: ${gatewayRestarts}`);
    out.push('');
    out.push('outcomes (client side)');
    out.push(table(Object.entries(outcomes).sort((a, b) => b[1] - a[1]).map(([k, v]) => [`  ${k}`, String(v), `${((100 * v) / run.sent).toFixed(1)} %`])));
    out.push(`  completed: latency p50 ${fmtMs(results.okLatencyMs.p50)}, p99 ${fmtMs(results.okLatencyMs.p99)}; ttfb p50 ${fmtMs(results.okTtfbMs.p50)}, p99 ${fmtMs(results.okTtfbMs.p99)}`);
    out.push('');
    out.push(
      table([
        ['goal', 'figure', 'ratio / verdict'],
        ['TCP-level failures = 0', `${tcp.length}${tcp.length ? ` (${Object.entries(tcpByCode).map(([k, v]) => `${v}× ${k}`).join(', ')}; ${clientSide} client-side)` : ''}`, verdict(tcp.length === 0)],
        [
          `429/503 answered within the queue TTL (${ttlMs} ms) + ${TTL_PATH_MS} ms of its send`,
          shed.length === 0 ? 'no 429/503' : `n=${shed.length}: p50 ${fmtMs(shedTime.p50)}, p99 ${fmtMs(shedTime.p99)}, max ${fmtMs(shedTime.max)}`,
          shed.length === 0 ? '–' : `max ${(shedTime.max / ttlMs).toFixed(3)}× TTL: ${verdict(shedTime.max <= ttlMs + TTL_PATH_MS)}`,
        ],
        ['unanswered at the end = 0', `${unanswered} (gave up after ${(requestTimeoutMs + 30_000) / 1000} s); ${pendingAfter ?? 0} still unanswered ${afterSeconds} s after the load stopped`, verdict(unanswered === 0)],
        ...PROBED.map((path) => {
          const p = probeStats[path];
          const failures = p.failures === 0 ? '' : ` (${Object.entries(p.failuresBy).map(([k, v]) => `${v}× ${k}`).join(', ')})`;
          return [
            `GET ${path} p99 < 100 ms`,
            `during load p50 ${fmtMs(p.duringLoad.p50)}, p99 ${fmtMs(p.duringLoad.p99)}, max ${fmtMs(p.duringLoad.max)} (of which TCP connect p99 ${fmtMs(p.connectDuringLoad.p99)}); ${p.failures} of ${p.n} failed${failures}`,
            `${(p.duringLoad.p99 / 100).toFixed(2)}× 100 ms: ${verdict(p.duringLoad.p99 < 100 && p.failures === 0)}`,
          ];
        }),
        [
          `gateway RSS ${afterSeconds} s after ≤ 1.2× at cluster start`,
          `at cluster start ${results.rssAtStartMiB?.toFixed(0)} MiB, before the load ${rssBefore?.toFixed(0)} MiB (after the capacity runs, when measured), peak ${rssPeak.toFixed(0)} MiB, after ${rssAfter?.toFixed(0) ?? '–'} MiB`,
          rssAfter && rssPreLoad ? `${(rssAfter / rssPreLoad).toFixed(2)}× at start: ${verdict(rssAfter <= 1.2 * rssPreLoad)}` : '–',
        ],
        [
          'gateway counted = sent',
          `sent ${run.sent}; sluice_requests_total +${countedTotal}, sluice_requests_received_total +${receivedDelta}, in flight at the end ${inFlightAfter}; never read by the gateway (sent − received) ${run.sent - receivedDelta}; no HTTP answer at all: ${Object.entries(noAnswer).map(([k, v]) => `${v}× ${k}`).join(', ') || 'none'}`,
          `${(countedTotal / run.sent).toFixed(4)}×: ${verdict(countedTotal === run.sent)}`,
        ],
      ], { left: true }),
    );
    out.push(`  the gateway's outcome counter by reason: ${Object.entries(terminalDelta).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    // Where the RSS is: the V8 heap, memory outside it (buffers, sockets), or pages the allocator kept.
    const mib = (samples, name) => (metricSum(samples, name) / 2 ** 20).toFixed(0);
    const memory = (samples) => `RSS ${mib(samples, 'process_resident_memory_bytes')}, heap used ${mib(samples, 'nodejs_heap_size_used_bytes')} of ${mib(samples, 'nodejs_heap_size_total_bytes')}, external ${mib(samples, 'nodejs_external_memory_bytes')} MiB`;
    out.push(`  the gateway's memory (its /metrics): before the load ${memory(before)}; at the end ${memory(after)}`);
    console.log(out.join('\n'));
    if (jsonFile) {
      writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
      log(`figures written to ${jsonFile}`);
    }
  } finally {
    if (monitor) monitor.kill();
    await cluster.stop();
  }
}
