import { parseExposition, parseSamples, seriesNames } from '../prometheus-exposition.js';
import type { MetricFact } from './metric-fact.js';

/** Labels sluice's registry puts on every series (libs/telemetry createMetricsRegistry). */
const SLUICE_LABELS = new Set(['service', 'instance_id']);

/**
 * What a `/metrics` page gets wrong about one fact, as sentences naming the metric (empty when
 * it holds): the family is missing or of another type, a label is missing or unknown, a required
 * label value never appears, or the bucket bounds differ.
 */
export function checkFact(fact: MetricFact, page: string): string[] {
  const family = parseExposition(page).get(fact.name);
  if (!family) return [`${fact.name}: not exposed (${fact.source})`];
  if (family.type !== fact.type) return [`${fact.name}: a ${family.type}, the peer's is a ${fact.type}`];
  const problems: string[] = [];
  const names = new Set(seriesNames(family));
  const samples = parseSamples(page).filter((s) => names.has(s.series));
  if (samples.length === 0) problems.push(`${fact.name}: declared but no series (the peer exposes it from start)`);

  const seen = new Set(samples.flatMap((s) => Object.keys(s.labels)).filter((l) => l !== 'le' && !SLUICE_LABELS.has(l)));
  const missing = fact.labels.filter((l) => !seen.has(l));
  if (missing.length > 0) problems.push(`${fact.name}: lacks label(s) ${missing.join(', ')}`);
  if (!fact.openLabels) {
    const allowed = new Set([...fact.labels, ...(fact.optionalLabels ?? [])]);
    const extra = [...seen].filter((l) => !allowed.has(l));
    if (extra.length > 0) problems.push(`${fact.name}: has label(s) the peer does not: ${extra.join(', ')}`);
  }

  for (const [label, values] of Object.entries(fact.values ?? {})) {
    const present = new Set(samples.map((s) => s.labels[label]));
    const absent = values.filter((v) => !present.has(v));
    if (absent.length > 0) problems.push(`${fact.name}: no series with ${label} ${absent.map((v) => `"${v}"`).join(', ')} (has ${[...present].join(', ')})`);
  }

  if (fact.buckets) {
    const buckets = samples.filter((s) => s.series === `${fact.name}_bucket`);
    const les = [...new Set(buckets.map((s) => s.labels.le!))];
    const expected = [...fact.buckets, '+Inf'];
    const same = fact.exactLe ? les.join() === expected.join() : les.map(Number).join() === expected.map(Number).join();
    if (!same) problems.push(`${fact.name}: buckets le=[${les.join(', ')}], the peer's [${expected.join(', ')}]`);
  }
  return problems;
}
