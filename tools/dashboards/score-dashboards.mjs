#!/usr/bin/env node
/**
 * How much of a public dashboard works against sluice, measured: starts a local cluster (the
 * default one, plus a band limit so the sheddable band is refused past 20 queued), a real
 * Prometheus scraping every service (the `prometheus` binary, as CI installs it), drives
 * `examples/workloads/quickstart.yaml` (two tenants, a shared system prompt) and then
 * `overload-shedding.yaml` (twice the capacity: queuing, 429s, preemption) through the gateway
 * with one request in 20 failing at its worker, then runs `panels-with-data.mjs` on each dashboard.
 * With `--disaggregated` the cluster's four instances are two prefill and two decode ones
 * (`worker.roles`, `router.disaggregation`) and `examples/workloads/disaggregated.yaml` runs too,
 * so the KV-transfer panels (vLLM's NIXL metrics) have transfers to show.
 *
 *   npm run build && node tools/dashboards/score-dashboards.mjs [--json FILE] [--disaggregated] dashboard.json …
 *
 * The dashboards are not in this repository (they are vLLM's and the Endpoint Picker's): download
 * them first (docs/metrics.md, "Dashboards you already have", says from where).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { FREE_PORT_ARGS, REPO_ROOT, freePort, startLocalCluster } from '@sluice/launcher';

const { values: options, positionals: dashboards } = parseArgs({ allowPositionals: true, options: { json: { type: 'string' }, disaggregated: { type: 'boolean' } } });
if (dashboards.length === 0) {
  console.error('usage: node tools/dashboards/score-dashboards.mjs [--json FILE] [--disaggregated] dashboard.json …');
  process.exit(2);
}
const log = (line) => console.error(`[score-dashboards] ${line}`);
const cli = (args) => spawnSync(process.execPath, [join(REPO_ROOT, 'apps/cli/dist/main.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });

log('starting a cluster');
const cluster = await startLocalCluster({
  rootDir: REPO_ROOT,
  configArgs: [
    ...FREE_PORT_ARGS,
    '--flowController.priorityBands=[{priority: -2, maxRequests: 20}]',
    ...(options.disaggregated ? ['--worker.roles.prefill=2', '--worker.roles.decode=2', '--router.disaggregation.decider=always'] : []),
  ],
  parallel: true,
});
const dir = mkdtempSync(join(tmpdir(), 'sluice-score-'));
let prometheus;
try {
  // A scrape job per service, named as compose's Prometheus names them (the dashboards' `job` variable).
  const jobs = cluster.services.map((s) => `  - job_name: ${JSON.stringify(s.name)}\n    static_configs:\n      - targets: [${JSON.stringify(new URL(s.url).host)}]`);
  writeFileSync(join(dir, 'prometheus.yml'), `global:\n  scrape_interval: 2s\nscrape_configs:\n${jobs.join('\n')}\n`);
  const port = await freePort();
  const prometheusUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: 'ignore' });
  for (let i = 0; i < 150 && !(await fetch(`${prometheusUrl}/-/ready`).then((r) => r.ok, () => false)); i++) await sleep(200);

  const control = cluster.natsIdentity('control');
  const nats = [`--nats.url=${cluster.natsUrl}`, ...(control ? [`--nats.user=${control.user}`, `--nats.passwordFile=${control.passwordFile}`] : [])];
  const faults = cli(['worker', 'faults', ...nats, '--failure-rate=0.05']);
  if (faults.status !== 0) throw new Error(`sluice worker faults: ${faults.stderr}`);

  for (const workload of ['quickstart.yaml', 'overload-shedding.yaml', ...(options.disaggregated ? ['disaggregated.yaml'] : [])]) {
    log(`sluice run examples/workloads/${workload}`);
    const run = cli(['run', join('examples/workloads', workload), '--gateway', cluster.gatewayUrl, '--out', join(dir, workload)]);
    if (run.status !== 0) log(`sluice run exited ${run.status}: ${run.stderr.slice(-500)}`);
    for (const line of run.stdout.split('\n').filter((l) => /^(all|outcomes) /.test(l))) log(`  ${line}`);
  }
  await sleep(6_000); // three more scrapes, so the last requests are in every rate() window

  log('scoring dashboards');
  const score = spawnSync(process.execPath, [join(REPO_ROOT, 'tools/dashboards/panels-with-data.mjs'), '--prometheus', prometheusUrl, '--range', '5m', '--rate-interval', '1m', ...(options.json ? ['--json'] : []), ...dashboards], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (options.json) writeFileSync(options.json, score.stdout);
  else process.stdout.write(score.stdout);
  process.stderr.write(score.stderr);
} finally {
  prometheus?.kill('SIGTERM');
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
