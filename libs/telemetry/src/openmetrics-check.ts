import { canonicalBound, EXEMPLAR_LABELS_MAX_CODE_POINTS } from './openmetrics-text.js';

/**
 * A strict reading of an OpenMetrics 1.0 text page against the spec's ABNF and its rules on
 * families and histograms (OpenObservability/OpenMetrics `specification/OpenMetrics.md`, commit
 * 0762bd778b8ef88c6984db7bfe99d8b40c2d114f): stricter than Prometheus' parser, which accepts, for
 * one, a quote unescaped in HELP. Returns what is wrong, one problem a line; [] for a valid page.
 */

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
/** escaped-string: no raw newline or quote; a backslash escapes `n`, a quote or a backslash. */
const ESCAPED = '(?:[^"\\\\\\n]|\\\\["\\\\n])*';
const LABELS = `\\{(?:${LABEL_NAME}="${ESCAPED}"(?:,${LABEL_NAME}="${ESCAPED}")*)?\\}`;
const NUMBER = '(?:[+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?|[+-]?(?:[iI]nf(?:inity)?)|NaN|nan)';
const DESCRIPTOR = new RegExp(`^# (HELP|TYPE|UNIT) (${NAME}) (.*)$`);
const SAMPLE = new RegExp(`^(${NAME})(${LABELS})? (${NUMBER})(?: (${NUMBER}))?(?: # (${LABELS}) (${NUMBER})(?: (${NUMBER}))?)?$`);
const HELP = new RegExp(`^${ESCAPED}$`);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'gaugehistogram', 'stateset', 'info', 'summary', 'unknown']);
const SUFFIXES: Record<string, readonly string[]> = {
  counter: ['_total', '_created'],
  summary: ['', '_count', '_sum', '_created'],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  info: ['_info'],
  gauge: [''],
  stateset: [''],
  unknown: [''],
};

function labelsOf(text: string | undefined): Map<string, string> {
  const labels = new Map<string, string>();
  for (const m of (text ?? '').matchAll(new RegExp(`(${LABEL_NAME})="(${ESCAPED})"`, 'g'))) labels.set(m[1]!, m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)));
  return labels;
}

interface HistogramSeries {
  lastLe: number;
  lastCount: number;
  infCount: number | undefined;
}

export function openMetricsProblems(page: string): string[] {
  const problems: string[] = [];
  if (!page.endsWith('# EOF\n') && !page.endsWith('# EOF')) problems.push('the page does not end with # EOF');
  const lines = page.replace(/\n$/, '').split('\n');
  if (lines.at(-1) === '# EOF') lines.pop();
  const seen = new Set<string>();
  let family: { name: string; type: string } | undefined;
  const histograms = new Map<string, HistogramSeries>();
  lines.forEach((line, index) => {
    const at = `line ${index + 1} (${line.slice(0, 80)})`;
    const descriptor = DESCRIPTOR.exec(line);
    if (descriptor) {
      const [, kind, name, text] = descriptor as unknown as [string, string, string, string];
      if (family?.name !== name) {
        if (seen.has(name)) problems.push(`${at}: family ${name} again (families must be unique and not interleaved)`);
        seen.add(name);
        family = { name, type: 'unknown' };
      }
      if (kind === 'TYPE') {
        if (!TYPES.has(text)) problems.push(`${at}: no such type ${text}`);
        family.type = text;
        if (text === 'counter' && name.endsWith('_total')) problems.push(`${at}: a counter family's name has no _total`);
      }
      if (kind === 'HELP' && !HELP.test(text)) problems.push(`${at}: HELP is not an escaped string`);
      return;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) {
      problems.push(`${at}: neither a descriptor nor a sample`);
      return;
    }
    const [, name, labelText, valueText, , exemplarLabels, exemplarValue] = sample;
    const suffix = family && name!.startsWith(family.name) ? name!.slice(family.name.length) : undefined;
    if (family === undefined || suffix === undefined || !(SUFFIXES[family.type] ?? []).includes(suffix)) {
      problems.push(`${at}: ${name} is not a sample of the family above it (${family?.name ?? 'none'}, ${family?.type ?? ''})`);
      return;
    }
    const labels = labelsOf(labelText);
    const value = Number(valueText);
    if (exemplarLabels !== undefined) {
      if (!((family.type === 'counter' && suffix === '_total') || (family.type === 'histogram' && suffix === '_bucket'))) problems.push(`${at}: an exemplar on a ${family.type}'s ${suffix} sample`);
      const codePoints = [...labelsOf(exemplarLabels)].reduce((n, [k, v]) => n + [...k].length + [...v].length, 0);
      if (codePoints > EXEMPLAR_LABELS_MAX_CODE_POINTS) problems.push(`${at}: exemplar labels of ${codePoints} code points`);
    }
    if (family.type !== 'histogram') return;
    const seriesKey = [...labels].filter(([k]) => k !== 'le').map(([k, v]) => `${k}=${v}`).join(',');
    const series = histograms.get(`${family.name}{${seriesKey}}`) ?? { lastLe: -Infinity, lastCount: 0, infCount: undefined };
    histograms.set(`${family.name}{${seriesKey}}`, series);
    if (suffix === '_bucket') {
      const le = labels.get('le');
      if (le === undefined) return void problems.push(`${at}: a bucket without le`);
      if (le !== '+Inf' && canonicalBound(Number(le)) !== le) problems.push(`${at}: le="${le}" is not a canonical number`);
      const bound = le === '+Inf' ? Infinity : Number(le);
      if (!(bound > series.lastLe)) problems.push(`${at}: buckets not in increasing le`);
      if (value < series.lastCount || !Number.isInteger(value)) problems.push(`${at}: bucket counts are not cumulative integers`);
      if (exemplarValue !== undefined && !(Number(exemplarValue) <= bound && Number(exemplarValue) > series.lastLe)) problems.push(`${at}: exemplar ${exemplarValue} outside its bucket`);
      series.lastLe = bound;
      series.lastCount = value;
      if (le === '+Inf') series.infCount = value;
    } else if (suffix === '_count') {
      if (series.infCount === undefined) problems.push(`${at}: a histogram series without a +Inf bucket`);
      else if (series.infCount !== value) problems.push(`${at}: _count ${value} is not the +Inf bucket's ${series.infCount}`);
    }
  });
  return problems;
}
