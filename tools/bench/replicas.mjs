// What replicating a stage does to its policy's behaviour (docs/scaling.md), live and in the twin.
//   npm run build && node tools/bench/replicas.mjs [--replicas 1,2,4] [--only admission|router] [--no-live] [--json FILE]
// 1. admission: a token bucket (capacity 6 000 prompt tokens, no refill) behind 1, 2, 4 admission
//    replicas, a burst of 60 requests of 200 tokens: how many are admitted (one bucket: 30). Live, on
//    a local cluster (each replica counts the others from their presence first); in the twin, the
//    same burst through `sluice simulate`.
// 2. router: examples/workloads/prefix-heavy.yaml (eight 4 096-token prefix groups, 832 KV blocks per
//    instance, 4 instances, `weighted` routing) behind 1, 2, 4 router replicas: the prefix-cache hit
//    rate (the engines', report.json's engine section: live, prompt tokens found cached; twin, KV
//    blocks reused) and the load balance over the instances (Jain's index of the requests each
//    served, and the busiest one's share over the mean). Live through `sluice run`, twin through
//    `sluice simulate`, same workload, same seed.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';
import { buildLabel, commandLine } from './bench-run.mjs';

const { flag, option } = commandLine();
const replicaCounts = option('replicas', '1,2,4').split(',').map(Number);
const only = option('only', undefined);
const live = !flag('no-live');
const jsonFile = option('json', undefined);
const log = (line) => process.stderr.write(`[replicas] ${line}\n`);
const SLUICE = join(REPO_ROOT, 'apps', 'cli', 'bin', 'sluice.mjs');
const out = mkdtempSync(join(tmpdir(), 'sluice-replicas-'));

// --- 1. admission --------------------------------------------------------------------------------
const CAPACITY = 6_000;
const COST = 200;
const BURST = 60;
const bucketArgs = ['--admission.policy=token-bucket', `--admission.policies.token-bucket.capacity=${CAPACITY}`, '--admission.policies.token-bucket.refillRate=0'];

async function admissionLive(replicas) {
  const cluster = await startLocalCluster({
    rootDir: REPO_ROOT,
    configArgs: [...FREE_PORT_ARGS, `--admission.replicas=${replicas}`, '--admission.heartbeatIntervalMs=200', '--worker.timeScale=100', ...bucketArgs],
  });
  try {
    for (const admission of cluster.services.filter((s) => s.name === 'admission')) {
      const deadline = Date.now() + 10_000;
      while ((await metric(admission.url, 'sluice_admission_replicas')) !== replicas) {
        if (Date.now() > deadline) throw new Error(`${admission.process} never counted ${replicas} replicas`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const prompt = Array.from({ length: COST }, (_, i) => i + 1);
    const statuses = await Promise.all(
      Array.from({ length: BURST }, () =>
        fetch(`${cluster.gatewayUrl}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'qwen3-14b', prompt, max_tokens: 1 }) }).then(async (r) => (await r.arrayBuffer(), r.status)),
      ),
    );
    return statuses.filter((s) => s === 200).length;
  } finally {
    await cluster.stop();
  }
}

function admissionTwin(replicas) {
  // The same burst as a workload: 60 requests of 200 tokens at one instant.
  const file = join(out, 'burst.yaml');
  writeFileSync(file, burstWorkload());
  const dir = join(out, `twin-admission-${replicas}`);
  simulate(file, dir, [`--admission.replicas=${replicas}`, ...bucketArgs]);
  return readReport(dir).records.filter((r) => r.status === 200).length;
}

function burstWorkload() {
  return [
    'version: "2"',
    'seed: 1',
    `aggregate_rate: ${BURST * 1000}`,
    `num_requests: ${BURST}`,
    'clients:',
    '  - id: burst',
    '    tenant_id: burst',
    '    slo_class: standard',
    '    rate_fraction: 1',
    '    arrival: { process: constant }',
    `    input_distribution: { type: constant, params: { value: ${COST} } }`,
    '    output_distribution: { type: constant, params: { value: 1 } }',
    '',
  ].join('\n');
}

// --- 2. router -----------------------------------------------------------------------------------
const PREFIX_HEAVY = join(REPO_ROOT, 'examples', 'workloads', 'prefix-heavy.yaml');
const prefixArgs = ['--worker.kvBlocks=832', '--router.policy=weighted', '--worker.instances=4'];

async function routerLive(replicas) {
  const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...FREE_PORT_ARGS, `--router.replicas=${replicas}`, ...prefixArgs] });
  try {
    const dir = join(out, `live-router-${replicas}`);
    // The worker's port as the cluster placed it: `sluice run` scrapes its /metrics for the engine section.
    const workerPort = `--worker.port=${cluster.config.worker.port}`;
    execFileSync(process.execPath, [SLUICE, 'run', PREFIX_HEAVY, '--gateway', cluster.gatewayUrl, '--out', dir, '--json', ...prefixArgs, workerPort], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    return routingFigures(readReport(dir));
  } finally {
    await cluster.stop();
  }
}

function routerTwin(replicas) {
  const dir = join(out, `twin-router-${replicas}`);
  simulate(PREFIX_HEAVY, dir, [`--router.replicas=${replicas}`, ...prefixArgs]);
  return routingFigures(readReport(dir));
}

/** The engines' cache-hit rate and how evenly the instances were loaded (requests served each). */
function routingFigures(report) {
  const served = new Map();
  for (const r of report.records) if (r.instance) served.set(r.instance, (served.get(r.instance) ?? 0) + 1);
  const counts = [...served.values()];
  const sum = counts.reduce((a, b) => a + b, 0);
  const jain = counts.length === 0 ? 1 : (sum * sum) / (counts.length * counts.reduce((a, b) => a + b * b, 0));
  const busiest = counts.length === 0 ? 0 : Math.max(...counts) / (sum / counts.length);
  const ttft = report.summary?.ttft ?? report.summary?.overall?.ttft;
  return { hitRate: report.engine?.cluster?.cacheHitRate, hitRateOf: report.engine?.cacheHitRateOf, jain, busiest, served: Object.fromEntries(served), ttftP50Ms: ttft?.p50 };
}

// --- helpers -------------------------------------------------------------------------------------
function simulate(workload, dir, args) {
  mkdirSync(dir, { recursive: true });
  execFileSync(process.execPath, [SLUICE, 'simulate', workload, '--out', dir, '--json', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

function readReport(dir) {
  return JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
}

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

const pct = (x) => (x === undefined ? '–' : `${(100 * x).toFixed(1)} %`);

// --- run -----------------------------------------------------------------------------------------
const results = { build: buildLabel(REPO_ROOT), admission: [], router: [] };
if (only === undefined || only === 'admission') {
  for (const n of replicaCounts) {
    log(`admission: ${n} replica(s)`);
    results.admission.push({ replicas: n, twin: admissionTwin(n), live: live ? await admissionLive(n) : undefined });
  }
}
if (only === undefined || only === 'router') {
  for (const n of replicaCounts) {
    log(`router: ${n} replica(s)`);
    results.router.push({ replicas: n, twin: routerTwin(n), live: live ? await routerLive(n) : undefined });
  }
}

const lines = [`replicated stages, build ${results.build}, node ${process.version}`];
if (results.admission.length > 0) {
  lines.push('', `admission: token bucket of ${CAPACITY} tokens, no refill; a burst of ${BURST} requests of ${COST} tokens (one bucket admits ${CAPACITY / COST})`);
  lines.push('| replicas | admitted, live | admitted, twin |', '|---|---|---|');
  for (const r of results.admission) lines.push(`| ${r.replicas} | ${r.live ?? '–'} | ${r.twin} |`);
}
if (results.router.length > 0) {
  lines.push('', 'router: prefix-heavy.yaml, weighted routing, 4 instances of 832 KV blocks');
  lines.push('| replicas | prefix-cache hit rate, live | twin | Jain index of requests per instance, live | twin | busiest ÷ mean, live | twin | TTFT p50, live | twin |');
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const r of results.router) {
    lines.push(`| ${r.replicas} | ${pct(r.live?.hitRate)} | ${pct(r.twin.hitRate)} | ${r.live?.jain.toFixed(3) ?? '–'} | ${r.twin.jain.toFixed(3)} | ${r.live?.busiest.toFixed(2) ?? '–'} | ${r.twin.busiest.toFixed(2)} | ${r.live?.ttftP50Ms?.toFixed(1) ?? '–'} ms | ${r.twin.ttftP50Ms?.toFixed(1) ?? '–'} ms |`);
  }
  lines.push(`hit rates: live ${results.router[0]?.live?.hitRateOf ?? '–'}, twin ${results.router[0]?.twin.hitRateOf ?? '–'}`);
}
console.log(lines.join('\n'));
if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify(results, null, 2)}\n`);
