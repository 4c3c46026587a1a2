import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';
import { OUTCOME_REASONS } from '@sluice/contracts';
import { describe, expect, it } from 'vitest';
import { readMetricsDoc } from './metrics-doc.js';
import { metricNamesIn } from './promql-metric-names.js';
import {
  loadRuleFiles,
  mutantsOf,
  PROMETHEUS_CONFIG,
  promtool,
  ruleFileNames,
  ruleFilesTestedBy,
  ruleTestFileNames,
  runMutant,
  type Mutant,
  type PrometheusRule,
} from './prometheus-rules.js';

/**
 * infra/prometheus/rules against promtool (Debian's prometheus package): the rules are valid,
 * compose's prometheus.yml loads them, their tests pass, and every rule has a test that fails
 * when its expression is broken. The rules read only series sluice exposes (docs/metrics.md, which
 * grafana-dashboards.int-spec.ts checks against a live cluster) and link to their runbook.
 */
const ALERTS_DOC = join(REPO_ROOT, 'docs', 'alerts.md');
/** Series Prometheus makes itself for every target, not any service's. */
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds']);
const SEVERITIES = new Set(['critical', 'warning']);

const files = loadRuleFiles();
const rules = files.flatMap(({ file, groups }) => groups.flatMap((g) => g.rules.map((rule) => ({ file, rule }))));
const alerts = rules.filter(({ rule }) => rule.alert !== undefined);
const nameOf = (rule: PrometheusRule) => rule.alert ?? rule.record!;

/** GitHub's anchor for a markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

describe('infra/prometheus/rules', () => {
  it('are valid rule files, loaded by the compose Prometheus’s config', async () => {
    expect(ruleFileNames().length).toBeGreaterThanOrEqual(5);
    const checked = await promtool(['check', 'rules', ...ruleFileNames()]);
    expect(checked.ok, checked.output).toBe(true);
    const config = await promtool(['check', 'config', PROMETHEUS_CONFIG]);
    expect(config.ok, config.output).toBe(true);
    for (const file of ruleFileNames()) expect(config.output, file).toContain(join('rules', file));
  });

  it('pass their promtool tests, and every rule file has one', async () => {
    const tested = ruleTestFileNames().flatMap((t) => ruleFilesTestedBy(t));
    expect([...new Set(tested)].sort()).toEqual(ruleFileNames());
    const result = await promtool(['test', 'rules', ...ruleTestFileNames()]);
    expect(result.ok, result.output).toBe(true);
  });

  it('give every alert a for, a severity, a summary, a description and a runbook section of docs/alerts.md', () => {
    const anchors = new Set([...readFileSync(ALERTS_DOC, 'utf8').matchAll(/^#{2,3} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
    const problems = alerts.flatMap(({ file, rule }) => {
      const at = `${file} ${rule.alert!}`;
      const runbook = /^docs\/alerts\.md#([\w-]+)$/.exec(rule.annotations?.runbook_url ?? '');
      return [
        ...(rule.for && /^\d+[smh]$/.test(rule.for) ? [] : [`${at}: for ${String(rule.for)}`]),
        ...(SEVERITIES.has(rule.labels?.severity ?? '') ? [] : [`${at}: severity ${String(rule.labels?.severity)}`]),
        ...(['summary', 'description'] as const).filter((a) => !/\S/.test(rule.annotations?.[a] ?? '')).map((a) => `${at}: no ${a}`),
        ...(runbook && anchors.has(runbook[1]!) ? [] : [`${at}: runbook_url ${String(rule.annotations?.runbook_url)} is not a section of docs/alerts.md`]),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('read only series sluice exposes, Prometheus’s own, or what another rule records', () => {
    const documented = readMetricsDoc();
    const recorded = new Set(rules.flatMap(({ rule }) => (rule.record ? [rule.record] : [])));
    const exposed = (name: string) =>
      documented.some((row) => {
        if (row.name === name) return true;
        return row.type === 'histogram' && ['_bucket', '_count', '_sum'].some((suffix) => name === row.name + suffix);
      });
    const unknown = rules.flatMap(({ file, rule }) =>
      metricNamesIn(rule.expr)
        .filter((name) => !exposed(name) && !recorded.has(name) && !PROMETHEUS_SERIES.has(name))
        .map((name) => `${file} ${nameOf(rule)}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('select only outcome reasons that exist (libs/contracts outcomes.ts)', () => {
    const selected = rules.flatMap(({ rule }) => [...rule.expr.matchAll(/\breason=~?"([^"]+)"/g)].flatMap((m) => m[1]!.split('|')));
    expect(selected.length).toBeGreaterThan(0);
    expect(selected.filter((reason) => !(reason in OUTCOME_REASONS))).toEqual([]);
  });
});

describe('every rule has a promtool test that fails when its expression is broken', () => {
  const cases = rules.map(({ file, rule }) => ({
    file,
    name: nameOf(rule),
    mutants: mutantsOf(rule),
    tests: ruleTestFileNames().filter((t) => ruleFilesTestedBy(t).includes(file)),
  }));

  it.each(cases)('$file $name', async ({ file, mutants, tests }) => {
    const survivors: string[] = [];
    const invalid: string[] = [];
    const run = async (mutant: Mutant) => {
      const { valid, tested } = await runMutant(file, mutant, tests);
      if (!valid.ok) invalid.push(`${mutant.change}: ${mutant.expr}\n${valid.output}`);
      else if (tested.ok) survivors.push(`${mutant.change}: ${mutant.expr}`);
    };
    // Two at a time: the machine's cores, shared.
    for (let i = 0; i < mutants.length; i += 2) await Promise.all(mutants.slice(i, i + 2).map(run));
    expect(invalid, 'mutants that are not valid rules prove nothing').toEqual([]);
    expect(survivors, 'broken expressions every test still passes').toEqual([]);
  }, 120_000);
});
