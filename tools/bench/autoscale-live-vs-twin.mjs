// The autoscaling examples live and in the twin (docs/autoscaling-examples.md): the instance-count
// timeline of each, and whether they agree within one decision interval (issue goal: "the twin's
// instance-count timeline matches the live one within one decision interval").
//   npm run build && node tools/bench/autoscale-live-vs-twin.mjs [--config examples/config/autoscale-queue-depth.yaml]
//        [--workload examples/workloads/step-load.yaml] [--autoscaler-port 18990] [--out .sluice/runs/autoscale-live-vs-twin]
// Needs a cluster that runs the autoscaler (`sluice up` starts it when autoscaler.enabled; the
// live service is apps/autoscaler): without one the live report has no autoscaler section and
// this says so. Both sides run the model at timeScale 1. The live run reads the autoscaler's
// gauges each second (report.json autoscaler.source "gauges"), so its times are to that grain.
// Agreement: every change of the desired or ready count on either side is matched by the same
// value on the other side within autoscaler.intervalMs (the live sync period's phase against the
// run's start is arbitrary; the twin's first decision is at one interval).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@sluice/config';
import { FREE_PORT_ARGS, REPO_ROOT, startLocalCluster } from '@sluice/launcher';
import { readReportJson } from '@sluice/report';
import { commandLine } from './bench-run.mjs';

const { option, flag } = commandLine();
const configFile = option('config', 'examples/config/autoscale-queue-depth.yaml');
const workload = option('workload', 'examples/workloads/step-load.yaml');
const autoscalerPort = Number(option('autoscaler-port', 18990));
const outDir = option('out', join(REPO_ROOT, '.sluice/runs/autoscale-live-vs-twin'));
const configArgs = ['--config', configFile, '--worker.timeScale=1', `--autoscaler.port=${autoscalerPort}`];
const sluice = (...args) => execFileSync(process.execPath, [join(REPO_ROOT, 'apps/cli/bin/sluice.mjs'), ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });

const config = loadConfig({ env: {}, argv: configArgs });
const intervalMs = config.autoscaler.intervalMs;
mkdirSync(outDir, { recursive: true });

// --compare-only: the reports an earlier run of this script left in --out.
if (!flag('compare-only')) {
  // The twin.
  sluice('simulate', workload, ...configArgs, '--out', join(outDir, 'twin'));
  // Live: a local cluster on free ports (the autoscaler on --autoscaler-port, which the run reads).
  const cluster = await startLocalCluster({ rootDir: REPO_ROOT, configArgs: [...configArgs, ...FREE_PORT_ARGS, `--autoscaler.port=${autoscalerPort}`] });
  try {
    sluice('run', workload, ...configArgs, '--gateway', cluster.gatewayUrl, '--out', join(outDir, 'live'), '--json');
  } finally {
    await cluster.stop();
  }
}

const twin = readReportJson(join(outDir, 'twin', 'report.json')).autoscaler;
const live = readReportJson(join(outDir, 'live', 'report.json')).autoscaler;
if (twin === undefined) throw new Error('the twin wrote no autoscaler section: is autoscaler.enabled in the config?');
if (live === undefined) {
  console.log(`The live report has no autoscaler section: the cluster ran no autoscaler on port ${autoscalerPort} (see ${join(outDir, 'live')}).`);
  process.exit(2);
}

/** Each change of `key` in a timeline: [atMs, value]. */
const changes = (section, key) => section.instances.filter((p, i, all) => i === 0 || all[i - 1][key] !== p[key]).map((p) => [p.atMs, p[key]]);
/** Changes of one side the other does not make to the same value within the interval. */
const unmatched = (from, to) => from.filter(([atMs, value]) => !to.some(([otherMs, other]) => other === value && Math.abs(otherMs - atMs) <= intervalMs));

let agree = true;
for (const key of ['desired', 'ready']) {
  const t = changes(twin, key);
  const l = changes(live, key);
  const misses = [...unmatched(t, l).map((c) => ['twin', ...c]), ...unmatched(l, t).map((c) => ['live', ...c])];
  console.log(`${key}: twin ${t.map(([ms, v]) => `${(ms / 1000).toFixed(1)}s→${v}`).join(' ')}`);
  console.log(`${key}: live ${l.map(([ms, v]) => `${(ms / 1000).toFixed(1)}s→${v}`).join(' ')}`);
  for (const [side, ms, v] of misses) console.log(`  ${side} went to ${v} at ${(ms / 1000).toFixed(1)} s; the other side did not within ${intervalMs} ms`);
  if (misses.length > 0) agree = false;
}
/** A timeline's `key` at `atMs` (its last point at or before). */
const at = (section, key, atMs) => {
  let value = section.instances[0]?.[key] ?? 0;
  for (const p of section.instances) if (p.atMs <= atMs) value = p[key];
  return value;
};
/**
 * How far apart the two counts get, allowing one interval of shift: at each 100 ms of the run, the
 * least |live − twin| over live's counts within ± one interval, and the largest of those.
 */
function largestGap(key) {
  const endMs = Math.max(twin.instances.at(-1).atMs, live.instances.at(-1).atMs) + intervalMs;
  let largest = 0;
  for (let t = 0; t <= endMs; t += 100) {
    const mine = at(twin, key, t);
    let least = Infinity;
    for (let s = -intervalMs; s <= intervalMs && least > 0; s += 100) least = Math.min(least, Math.abs(at(live, key, t + s) - mine));
    largest = Math.max(largest, least);
  }
  return largest;
}
for (const key of ['desired', 'ready']) console.log(`${key}: the counts differ by at most ${largestGap(key)} instance(s), allowing one interval of shift`);
const fig = (s) => `instance-hours ${s.instanceHours.toFixed(4)}, good/instance-hour ${s.goodPerInstanceHour?.toFixed(0) ?? '—'}, reaction ${s.scaleUps.map((u) => u.reactionMs ?? '—').join(' ')} ms`;
console.log(`twin: ${fig(twin)}\nlive: ${fig(live)}`);
console.log(agree ? `The timelines agree within one decision interval (${intervalMs} ms).` : 'The timelines do NOT agree within one decision interval.');
process.exit(agree ? 0 : 1);
