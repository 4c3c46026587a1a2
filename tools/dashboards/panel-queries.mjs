/**
 * A Grafana dashboard's panels and the PromQL each one runs, with the dashboard's variables
 * replaced the way Grafana would for one choice of values: what `panels-with-data.mjs` sends to
 * Prometheus to tell which panels of a public dashboard show data against sluice.
 */

/** Panels that plot nothing (rows, text, news) are not counted. */
const NOT_PLOTTED = new Set(['row', 'text', 'news', 'dashlist']);

/** Every plotted panel, with the rows' collapsed panels, in the dashboard's order. */
export function plottedPanels(dashboard) {
  const panels = [];
  const visit = (list) => {
    for (const panel of list ?? []) {
      if (panel.type === 'row') visit(panel.panels);
      else if (!NOT_PLOTTED.has(panel.type)) panels.push(panel);
    }
  };
  visit(dashboard.panels ?? dashboard.dashboard?.panels);
  return panels;
}

/** The PromQL expressions of a panel's targets that are not hidden. */
export function panelExpressions(panel) {
  return (panel.targets ?? []).filter((t) => !t.hide && typeof t.expr === 'string' && t.expr.trim() !== '').map((t) => t.expr);
}

/** The dashboard's template variables: name → the variable as Grafana stores it. */
export function templateVariables(dashboard) {
  const list = (dashboard.templating ?? dashboard.dashboard?.templating)?.list ?? [];
  return new Map(list.map((v) => [v.name, v]));
}

/**
 * `label_values(metric{selector}, label)` or `label_values(label)` of a query variable, as the
 * series selector and label name to ask Prometheus for; undefined for any other query.
 */
export function labelValuesQuery(variable) {
  const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
  const match = /^\s*label_values\(\s*(?:(.+?)\s*,\s*)?([A-Za-z_]\w*)\s*\)\s*$/.exec(query ?? '');
  return match ? { selector: match[1], label: match[2] } : undefined;
}

/**
 * `expr` with Grafana's built-in interval variables set (`$__rate_interval` and `$__interval` to
 * `rateInterval`, `$__range` to `range`) and each template variable set to `values.get(name)`:
 * `$name`, `${name}`, `${name:…}` and `[[name]]` forms. A variable without a value becomes `.*`,
 * what "All" sends to a regex matcher.
 */
export function substitute(expr, values, { rateInterval = '1m', range = '5m' } = {}) {
  const builtins = { __rate_interval: rateInterval, __interval: rateInterval, __range: range, __range_s: String(seconds(range)) };
  const valueOf = (name) => builtins[name] ?? values.get(name) ?? '.*';
  return expr
    .replace(/\$\{(\w+)(?::[^}]*)?\}/g, (_, name) => valueOf(name))
    .replace(/\[\[(\w+)\]\]/g, (_, name) => valueOf(name))
    .replace(/\$(\w+)/g, (_, name) => valueOf(name));
}

function seconds(duration) {
  const match = /^(\d+)([smhd])$/.exec(duration);
  if (!match) return 0;
  return Number(match[1]) * { s: 1, m: 60, h: 3_600, d: 86_400 }[match[2]];
}

/**
 * The metric names an expression reads, roughly (for the report, not for checking): strings,
 * matchers, ranges and label lists removed, then the identifiers with `_` or `:` that are not
 * called. libs/testing's `metricNamesIn` is the strict one the dashboard tests use.
 */
export function metricNames(expr) {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...stripped.matchAll(/[A-Za-z_:][\w:]*(?!\w|:|\s*\()/g)].map((m) => m[0]).filter((name) => /[_:]/.test(name) && !name.startsWith('__'));
}
