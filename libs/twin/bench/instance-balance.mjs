// How a run's work spread over the instances, and how much of it hit the prefix cache:
//   node libs/twin/bench/instance-balance.mjs DIR/report.json [more report.json …]
// One line per report: the router's replicas and policy, the engine's cache-hit rate (report.json's
// `engine`: the cluster's unweighted mean over instances, as BLIS reports it, and the lowest and
// highest instance), and the completed requests per instance (from the records' `instance`) with
// max/mean and Jain's index over them (1 = perfectly even, 1/N = all on one instance).
import { jainIndex } from '@sluice/metrics';
import { readReportJson } from '@sluice/report';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node libs/twin/bench/instance-balance.mjs DIR/report.json [more report.json …]');
  process.exit(2);
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
console.log('router replicas  policy        hit rate (min-max)       requests per instance   max/mean  Jain');
for (const file of files) {
  const report = readReportJson(file);
  const { router } = report.config;
  const engine = report.engine;
  const served = new Map(engine.instances.map((i) => [i.instance, 0]));
  for (const r of report.records) if (r.outcome === 'completed' && r.instance !== undefined) served.set(r.instance, (served.get(r.instance) ?? 0) + 1);
  const counts = [...served.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, n]) => n);
  const mean = counts.reduce((s, n) => s + n, 0) / counts.length;
  const rates = engine.instances.map((i) => i.cacheHitRate);
  console.log(
    [
      String(router.replicas ?? 1).padEnd(16),
      String(router.policy).padEnd(13),
      `${pct(engine.cluster.cacheHitRate)} (${pct(Math.min(...rates))}-${pct(Math.max(...rates))})`.padEnd(24),
      counts.join(' / ').padEnd(23),
      (Math.max(...counts) / mean).toFixed(2).padEnd(9),
      jainIndex(counts).toFixed(3),
    ].join(' '),
  );
}
