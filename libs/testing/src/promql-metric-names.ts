/**
 * The metric names a PromQL expression reads, so a dashboard can be checked against what a live
 * cluster exposes. Not a full PromQL parser: it removes what cannot hold a metric name (strings,
 * label matchers, ranges, label lists after by / without / on / ignoring / group_*), Grafana
 * variables and numbers, then keeps every identifier that is neither a keyword nor a function
 * call. An unknown function name is an error rather than silently skipped, so a typo such as
 * `histogram_quantil(` fails the check too.
 */

/** PromQL's functions and aggregation operators (Prometheus 3), the names that may precede `(`. */
const FUNCTIONS = new Set([
  // aggregation operators
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
  // functions
  'abs', 'absent', 'absent_over_time', 'ceil', 'changes', 'clamp', 'clamp_max', 'clamp_min', 'day_of_month', 'day_of_week', 'day_of_year',
  'days_in_month', 'delta', 'deriv', 'exp', 'floor', 'histogram_avg', 'histogram_count', 'histogram_fraction', 'histogram_quantile',
  'histogram_stddev', 'histogram_stdvar', 'histogram_sum', 'hour', 'idelta', 'increase', 'irate', 'label_join', 'label_replace', 'ln',
  'log2', 'log10', 'minute', 'month', 'predict_linear', 'rate', 'resets', 'round', 'scalar', 'sgn', 'sort', 'sort_desc', 'sort_by_label',
  'sort_by_label_desc', 'sqrt', 'time', 'timestamp', 'vector', 'year', 'avg_over_time', 'min_over_time', 'max_over_time', 'sum_over_time',
  'count_over_time', 'quantile_over_time', 'stddev_over_time', 'stdvar_over_time', 'last_over_time', 'present_over_time', 'mad_over_time',
  'acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'cos', 'cosh', 'sin', 'sinh', 'tan', 'tanh', 'deg', 'rad', 'pi',
  // Grafana's Prometheus variable queries
  'label_values', 'label_names', 'metrics', 'query_result',
]);

/** Words of the language that are not metric names: binary operators, modifiers, literals. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'atan2', 'bool', 'offset', 'inf', 'nan', 'start', 'end']);

export class PromqlNameError extends Error {
  override readonly name = 'PromqlNameError';
}

/** The distinct metric names `expr` selects, in order of first appearance. */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // strings: label values and regexes
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ') // Grafana variables ($worker, ${engine}, $__rate_interval)
    .replace(/\{[^}]*\}/g, ' ') // label matchers (their values are gone already)
    .replace(/\[[^\]]*\]/g, ' ') // range selectors and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\boffset\s+-?[\w.]+/g, ' ')
    .replace(/@\s*[\w.()]+/g, ' ')
    .replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w:])/gi, ' '); // numbers

  const names: string[] = [];
  for (const match of stripped.matchAll(/[A-Za-z_:][\w:]*/g)) {
    const word = match[0];
    const isCall = /^\s*\(/.test(stripped.slice(match.index + word.length));
    if (isCall) {
      if (!FUNCTIONS.has(word)) throw new PromqlNameError(`unknown PromQL function "${word}" in: ${expr}`);
      continue;
    }
    if (KEYWORDS.has(word.toLowerCase())) continue;
    if (!names.includes(word)) names.push(word);
  }
  return names;
}

/**
 * For a Grafana variable query, `label_values(metric{…}, label)`: the metric it reads (the label
 * argument is not a metric). Other variable queries are PromQL.
 */
export function metricNamesInVariableQuery(query: string): string[] {
  const labelValues = /^\s*label_values\s*\((.*),\s*[A-Za-z_]\w*\s*\)\s*$/s.exec(query);
  if (labelValues) return metricNamesIn(labelValues[1]!);
  if (/^\s*label_values\s*\(\s*[A-Za-z_]\w*\s*\)\s*$/.test(query)) return [];
  return metricNamesIn(query);
}
