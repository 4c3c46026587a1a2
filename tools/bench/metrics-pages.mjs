// Benchmark (bounded, non-blocking metrics pages): every service's /metrics after a tenant flood,
// and what continuous scraping costs the requests.
//   npm run build && node tools/bench/metrics-pages.mjs [--tenants 20000] [--concurrency 128]
//        [--probe-requests 400] [--phase-seconds 15] [--scrapers 8] [--json FILE] [-- extra config flags]
// Not part of `npm run bench`. A local cluster with every service (1 worker process × 4 instances,
// worker.timeScale 1000, max_tokens 1, no NATS auth, free ports) then:
// 1. flood: --tenants distinct tenants (x-gateway-inference-fairness-id) × every SLO class
//    (x-sluice-slo-class) × streamed and not, closed loop at --concurrency, from loopback (a trusted
//    header source by default);
// 2. pages: each service's /metrics page, its bytes and the time of 5 scrapes one after another
//    (median and max), each on a new connection;
// 3. requests: one tenant's, 4 at a time, at least --probe-requests and --phase-seconds, with nothing scraped (idle);
//    the same while every page is scraped once a second (Prometheus at a tight interval); and while
//    --scrapers loops per service scrape every page back to back (a scrape storm); p50/p99 of each
//    and the ratios to idle, in the same run.
// Extra arguments after `--` go to every service (e.g. `-- --metrics.maxTenantSeries=1000`).
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';
import { buildLabel, commandLine } from './bench-run.mjs';
import { completionRequest, createAgent, fmtMs, probe, sendRequest, stats, table } from './live/load-generator.mjs';

const cli = commandLine(process.argv.slice(2, process.argv.includes('--') ? process.argv.indexOf('--') : undefined));
const arg = (name, fallback) => cli.option(name, fallback);
const TENANTS = Number(arg('tenants', 20_000));
const CONCURRENCY = Number(arg('concurrency', 128));
const PROBE_REQUESTS = Number(arg('probe-requests', 400));
const SCRAPERS = Number(arg('scrapers', 8));
const PHASE_SECONDS = Number(arg('phase-seconds', 15));
const JSON_FILE = arg('json', undefined);
const dashDash = process.argv.indexOf('--');
const EXTRA = dashDash === -1 ? [] : process.argv.slice(dashDash + 1);
const SLO_CLASSES = ['critical', 'standard', 'batch', 'sheddable', 'background'];

/** One request of `tenant` in `sloClass`, streamed or not. */
function tenantRequest(tenant, sloClass, stream) {
  const request = completionRequest({ stream, maxTokens: 1, reportTimings: false });
  return { ...request, headers: { ...request.headers, 'x-gateway-inference-fairness-id': tenant, 'x-sluice-slo-class': sloClass } };
}

/** Runs `count` jobs, `concurrency` at a time. */
async function closedLoop(count, concurrency, job) {
  let next = 0;
  const records = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) records.push(await job(i));
    }),
  );
  return records;
}

async function flood(gatewayUrl, agent) {
  const kinds = SLO_CLASSES.length * 2;
  const t = performance.now();
  const records = await closedLoop(TENANTS * kinds, CONCURRENCY, (i) => {
    const tenant = `tenant-${Math.floor(i / kinds)}`;
    const kind = i % kinds;
    return sendRequest({ url: gatewayUrl, agent, request: tenantRequest(tenant, SLO_CLASSES[kind >> 1], kind % 2 === 1) });
  });
  const byStatus = {};
  for (const r of records) byStatus[r.status ?? r.error] = (byStatus[r.status ?? r.error] ?? 0) + 1;
  return { requests: records.length, seconds: (performance.now() - t) / 1000, byStatus };
}

async function pages(services) {
  const rows = [];
  for (const s of services) {
    const times = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const r = await probe(`${s.url}/metrics`, { timeoutMs: 60_000 });
      if (r.status !== 200) throw new Error(`${s.name} /metrics: ${r.status ?? r.error}`);
      times.push(r.ms);
      bytes = Buffer.byteLength(r.text);
    }
    const sorted = times.sort((a, b) => a - b);
    rows.push({ service: s.process ?? s.name, bytes, medianMs: sorted[2], maxMs: sorted[4] });
  }
  return rows;
}

/** At least --probe-requests requests of one tenant, 4 at a time, for at least --phase-seconds. */
async function requestLatencies(gatewayUrl, agent) {
  const until = performance.now() + PHASE_SECONDS * 1000;
  const records = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (records.length < PROBE_REQUESTS || performance.now() < until) records.push(await sendRequest({ url: gatewayUrl, agent, request: tenantRequest('probe', 'standard', false) }));
    }),
  );
  const failed = records.filter((r) => r.status !== 200).length;
  return { ...stats(records.map((r) => r.latencyMs)), failed };
}

/** Scrapes every service's page from `loopsPerService` loops each, `everyMs` apart (0: back to back), until `stop` resolves. */
function scrapeContinuously(services, stop, loopsPerService, everyMs) {
  let scrapes = 0;
  let stopped = false;
  void stop.then(() => (stopped = true));
  const loops = services.flatMap((s) =>
    Array.from({ length: loopsPerService }, async () => {
      while (!stopped) {
        const t = performance.now();
        await probe(`${s.url}/metrics`, { timeoutMs: 60_000 });
        scrapes += 1;
        const wait = everyMs - (performance.now() - t);
        if (wait > 0) await Promise.race([stop, new Promise((r) => setTimeout(r, wait))]);
      }
    }),
  );
  return Promise.all(loops).then(() => scrapes);
}

const cluster = await startLocalCluster({
  rootDir: REPO_ROOT,
  configArgs: ['--nats.auth=false', ...FREE_PORT_ARGS, '--worker.timeScale=1000', ...EXTRA],
  warmUpRequests: 200,
});
const agent = createAgent({ maxSockets: CONCURRENCY });
try {
  const before = await pages(cluster.services);
  const flooded = await flood(cluster.gatewayUrl, agent);
  const after = await pages(cluster.services);
  const idle = await requestLatencies(cluster.gatewayUrl, agent);
  const whileScraped = async (loopsPerService, everyMs) => {
    let release;
    const stop = new Promise((r) => (release = r));
    const scraping = scrapeContinuously(cluster.services, stop, loopsPerService, everyMs);
    const latencies = await requestLatencies(cluster.gatewayUrl, agent);
    release();
    return { ...latencies, scrapes: await scraping };
  };
  const scraped = await whileScraped(1, 1_000);
  const storm = await whileScraped(SCRAPERS, 0);

  const result = { build: buildLabel(REPO_ROOT), command: `node tools/bench/metrics-pages.mjs ${process.argv.slice(2).join(' ')}`, tenants: TENANTS, flood: flooded, before, after, idle, scraped, storm };
  console.log(`\n${result.build}  ${result.command}`);
  console.log(`flood: ${flooded.requests} requests (${TENANTS} tenants × ${SLO_CLASSES.length} SLO classes × stream/non-stream) in ${flooded.seconds.toFixed(1)} s: ${JSON.stringify(flooded.byStatus)}`);
  const kb = (b) => (b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(2)} MB` : `${(b / 1024).toFixed(0)} kB`);
  console.log(
    table([
      ['service', 'page before', 'page after', 'scrape median', 'scrape max'],
      ...after.map((a, i) => [a.service, kb(before[i].bytes), kb(a.bytes), fmtMs(a.medianMs), fmtMs(a.maxMs)]),
    ]),
  );
  console.log(
    table([
      ['requests (4 at a time)', 'n', 'failed', 'p50', 'p99'],
      ['idle', idle.n, idle.failed, fmtMs(idle.p50), fmtMs(idle.p99)],
      [`every page each 1 s (${scraped.scrapes} scrapes)`, scraped.n, scraped.failed, fmtMs(scraped.p50), fmtMs(scraped.p99)],
      ['  ratio to idle', '', '', (scraped.p50 / idle.p50).toFixed(2), (scraped.p99 / idle.p99).toFixed(2)],
      [`storm: ${SCRAPERS} loops × ${cluster.services.length} services back to back (${storm.scrapes} scrapes)`, storm.n, storm.failed, fmtMs(storm.p50), fmtMs(storm.p99)],
      ['  ratio to idle', '', '', (storm.p50 / idle.p50).toFixed(2), (storm.p99 / idle.p99).toFixed(2)],
    ]),
  );
  if (JSON_FILE) writeFileSync(JSON_FILE, JSON.stringify(result, null, 2));
} finally {
  agent.destroy();
  await cluster.stop();
}
