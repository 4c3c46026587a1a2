#!/usr/bin/env node
/**
 * Which panels of a Grafana dashboard show data against a Prometheus that scrapes sluice:
 *
 *   node tools/dashboards/panels-with-data.mjs --prometheus http://127.0.0.1:9090 dashboard.json …
 *
 * For public dashboards (vLLM's, the Endpoint Picker's) downloaded as JSON: each variable is
 * given a value as Grafana would (its current value; for a `label_values` query saved as "All",
 * every value Prometheus has, otherwise the first), each plotted panel's queries run as instant
 * queries, and a panel has
 * data when one of them returns a finite sample. Prints, per dashboard, `N / M panels with data`
 * and the panels without, with the metric names they ask for. `--json` prints the same as JSON.
 * `--range 5m` sets `$__range`; `--rate-interval 1m` sets `$__rate_interval`.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { URLSearchParams } from 'node:url';
import { parseArgs } from 'node:util';
import { labelValuesQuery, metricNames, panelExpressions, plottedPanels, substitute, templateVariables } from './panel-queries.mjs';

const { values: options, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    prometheus: { type: 'string', default: 'http://127.0.0.1:9090' },
    range: { type: 'string', default: '5m' },
    'rate-interval': { type: 'string', default: '1m' },
    json: { type: 'boolean', default: false },
  },
});
if (files.length === 0) {
  console.error('usage: node tools/dashboards/panels-with-data.mjs [--prometheus URL] [--range 5m] [--rate-interval 1m] [--json] dashboard.json …');
  process.exit(2);
}

async function prometheus(path, params) {
  const res = await fetch(`${options.prometheus}${path}?${params.toString()}`);
  const body = await res.json();
  if (body.status !== 'success') throw new Error(body.error ?? `HTTP ${res.status}`);
  return body.data;
}

/**
 * A label value as a literal inside a PromQL regex string, as Grafana's Prometheus data source
 * escapes multi-value variables: each metacharacter behind a backslash that is itself escaped
 * for the PromQL string (`127\\.0\\.0\\.1`).
 */
const escapeRegex = (value) => value.replace(/\\/g, '\\\\\\\\').replace(/[$^*{}[\]'+?.()|]/g, '\\\\$&');

/** One value per variable, in the dashboard's order (later variables may use earlier ones). */
async function chooseValues(dashboard) {
  const values = new Map();
  for (const [name, variable] of templateVariables(dashboard)) {
    if (variable.type === 'datasource') continue;
    const current = variable.current?.value;
    const fixed = Array.isArray(current) ? current[0] : current;
    if (variable.type !== 'query') {
      if (typeof fixed === 'string' && fixed !== '$__all') values.set(name, fixed);
      continue;
    }
    const query = labelValuesQuery(variable);
    if (!query) continue;
    const params = new URLSearchParams();
    if (query.selector) params.append('match[]', substitute(query.selector, values, { rateInterval: options['rate-interval'], range: options.range }));
    const found = await prometheus(`/api/v1/label/${query.label}/values`, params).catch(() => []);
    if (found.length === 0) continue;
    // Saved as "All": Grafana queries every value (its allValue, or the values as one regex
    // alternation); otherwise the first value, as a user picking one would.
    if (fixed === '$__all' && variable.includeAll) values.set(name, variable.allValue ?? `(${found.map(escapeRegex).join('|')})`);
    else values.set(name, found[0]);
  }
  return values;
}

const hasFinite = (result) =>
  Array.isArray(result) ? result.some((r) => Number.isFinite(Number((r.value ?? r.values?.at(-1))?.[1]))) : Number.isFinite(Number(result?.[1]));

async function check(file) {
  const dashboard = JSON.parse(readFileSync(file, 'utf8'));
  const values = await chooseValues(dashboard);
  const panels = [];
  for (const panel of plottedPanels(dashboard)) {
    const exprs = panelExpressions(panel).map((e) => substitute(e, values, { rateInterval: options['rate-interval'], range: options.range }));
    let data = false;
    const errors = [];
    for (const expr of exprs) {
      try {
        const result = await prometheus('/api/v1/query', new URLSearchParams({ query: expr }));
        if (hasFinite(result.result)) data = true;
      } catch (error) {
        errors.push(`${expr}: ${error.message}`);
      }
    }
    const metrics = [...new Set(exprs.flatMap(metricNames))];
    panels.push({ title: panel.title ?? '(untitled)', data, metrics, errors });
  }
  return { dashboard: dashboard.title ?? basename(file), file: basename(file), withData: panels.filter((p) => p.data).length, panels };
}

const reports = [];
for (const file of files) reports.push(await check(file));
if (options.json) console.log(JSON.stringify(reports, null, 2));
else {
  for (const report of reports) {
    console.log(`${report.dashboard} (${report.file}): ${report.withData} / ${report.panels.length} panels with data`);
    for (const panel of report.panels.filter((p) => !p.data)) console.log(`  no data: ${panel.title} — ${panel.metrics.join(', ') || '(no metric)'}${panel.errors.length ? ` [${panel.errors.length} query error(s)]` : ''}`);
  }
}
