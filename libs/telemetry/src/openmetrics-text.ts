import { pythonFloatString } from './python-buckets.js';

/**
 * The OpenMetrics 1.0 text format's spellings where they differ from the Prometheus text format
 * 0.0.4 (OpenObservability/OpenMetrics `specification/OpenMetrics.md`, commit
 * 0762bd778b8ef88c6984db7bfe99d8b40c2d114f, "Text format" and its ABNF), and the writer of a
 * prom-client family's samples in it.
 */

/** A counter family is named without `_total`; its samples keep the suffix. */
export function openMetricsFamilyName(name: string, type: string): string {
  return type === 'counter' && name.endsWith('_total') ? name.slice(0, -'_total'.length) : name;
}

/** The name of a counter's sample: the family's plus `_total`. */
export const counterSampleName = (familyName: string): string => `${familyName}_total`;

/** 0.0.4's `untyped` is OpenMetrics' `unknown`; the other types prom-client and sluice write keep their names. */
export const openMetricsType = (type: string): string => (type === 'untyped' ? 'unknown' : type);

/** HELP is an escaped string: backslash, newline and, unlike 0.0.4, the double quote. */
export const escapeOpenMetricsHelp = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

const escapeLabelValue = (value: string): string => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** A sample's value: `NaN`, `+Inf`, `-Inf` (prom-client writes `Nan`), else JavaScript's shortest round-trip form. */
export const openMetricsValue = (value: number): string =>
  Number.isNaN(value) ? 'NaN' : value === Infinity ? '+Inf' : value === -Infinity ? '-Inf' : `${value}`;

/**
 * An `le` or `quantile` label value: the spec's canonical numbers (Go's `%g` with `.0` added to
 * an integer: `1.0`, `0.005`, `1e+06`), which is what Python's prometheus_client writes.
 */
export const canonicalBound = (bound: number | string): string => (typeof bound === 'number' ? pythonFloatString(bound) : bound);

/** The spec's bound on an exemplar: its label names and values together, in code points. */
export const EXEMPLAR_LABELS_MAX_CODE_POINTS = 128;

/** Labels an exemplar carries (sluice's: the request's W3C `trace_id`). */
export type ExemplarLabels = Readonly<Record<string, string>>;

/**
 * ` # {labels} value timestamp`, appended to a bucket's (or a counter's) sample line; '' when the
 * labels are over the spec's 128 code points, which an ingestor would reject with the whole page.
 */
export function exemplarSuffix(labels: ExemplarLabels, value: number, timestampMs: number): string {
  let codePoints = 0;
  const pairs: string[] = [];
  for (const [name, labelValue] of Object.entries(labels)) {
    codePoints += [...name].length + [...labelValue].length;
    pairs.push(`${name}="${escapeLabelValue(labelValue)}"`);
  }
  if (codePoints > EXEMPLAR_LABELS_MAX_CODE_POINTS) return '';
  return ` # {${pairs.join(',')}} ${openMetricsValue(value)} ${timestampMs / 1000}`;
}

/** What prom-client's `get()` returns for one family (its typings do not name the sample fields it sets). */
export interface PromClientFamily {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly values?: readonly {
    readonly value: number;
    readonly labels?: Readonly<Record<string, string | number>>;
    readonly metricName?: string;
    readonly sharedLabels?: Readonly<Record<string, string | number>>;
    readonly exemplar?: { readonly labelSet: ExemplarLabels; readonly value: number; readonly timestamp: number } | null;
  }[];
}

/**
 * A prom-client family in OpenMetrics text, with no trailing newline: labels in the order
 * prom-client's registry writes them (the sample's, the default labels it does not set, then the
 * histogram's series labels), `le` and `quantile` as canonical numbers, a counter's samples
 * under the family name plus `_total`. prom-client's own OpenMetrics output is not used: its
 * `metrics()` renames every counter in place (for every later scrape, of any format), and it
 * writes `Nan`, unescaped quotes in HELP and `le="1"`.
 */
export function promClientFamilyOpenMetrics(family: PromClientFamily, defaultLabels: Readonly<Record<string, string>>): string {
  const name = openMetricsFamilyName(family.name, family.type);
  const lines = [`# HELP ${name} ${escapeOpenMetricsHelp(family.help)}`, `# TYPE ${name} ${openMetricsType(family.type)}`];
  for (const sample of family.values ?? []) {
    const sampleName = family.type === 'counter' ? counterSampleName(name) : (sample.metricName ?? name);
    const shared = sample.sharedLabels ?? {};
    const own = { ...sample.labels, ...defaultLabels, ...sample.labels };
    const pairs: string[] = [];
    for (const [label, value] of Object.entries(own)) {
      if (Object.hasOwn(shared, label)) continue;
      const text = label === 'le' || label === 'quantile' ? canonicalBound(value) : String(value);
      pairs.push(`${label}="${escapeLabelValue(text)}"`);
    }
    for (const [label, value] of Object.entries(shared)) pairs.push(`${label}="${escapeLabelValue(String(value))}"`);
    const exemplar = sample.exemplar ? exemplarSuffix(sample.exemplar.labelSet, sample.exemplar.value, sample.exemplar.timestamp * 1000) : '';
    lines.push(`${sampleName}${pairs.length > 0 ? `{${pairs.join(',')}}` : ''} ${openMetricsValue(sample.value)}${exemplar}`);
  }
  return lines.join('\n');
}
