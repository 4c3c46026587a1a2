import type { Registry } from 'prom-client';
import type { MetricsFormat } from './metrics-format.js';
import {
  canonicalBound,
  counterSampleName,
  escapeOpenMetricsHelp,
  exemplarSuffix,
  openMetricsFamilyName,
  openMetricsValue,
  type ExemplarLabels,
} from './openmetrics-text.js';

/**
 * Labelled counters, gauges and histograms for the per-request and per-token paths, written out
 * by prom-client's registry like its own metrics. prom-client re-validates and re-hashes the
 * labels on every observation, even through a `labels()` child (measured on the gateway and
 * worker at +5–10 % CPU once each request fed ~20 series of the vLLM and Endpoint Picker
 * metrics); here `labels()` finds or makes the series once, and the child it returns adds to its
 * numbers directly. Same names, types, help, label values and `le` strings as prom-client writes.
 * A histogram also keeps exemplars (the latest per bucket), written only on the OpenMetrics page.
 */

type LabelValues<T extends string> = Partial<Record<T, string | number>>;

interface Options<T extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames?: readonly T[];
  readonly registers?: readonly Registry[];
}

interface Sample {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
  /** A histogram's series labels, which prom-client writes after `le` and the default labels. */
  readonly sharedLabels?: Record<string, string>;
}

/** A series' label sets as the text format writes them, escaped once (not on every scrape). */
interface SeriesText {
  /** For these default labels (the registry's, which are set once). */
  readonly defaults: Readonly<Record<string, string>>;
  /** `name="value"` of the series' own labels, in label-name order. */
  readonly own: string;
  /** The default labels the series does not set itself. */
  readonly inherited: string;
}

/** What every child carries: set by each change to its numbers, cleared when its lines are written. */
interface Changed {
  changed: boolean;
}

type Series<Child> = {
  readonly labels: Record<string, string>;
  readonly child: Child;
  text?: SeriesText;
  /** The series' lines as last written in each format (joined with newlines), valid while the child has not changed since. */
  lines?: Partial<Record<MetricsFormat, string>>;
};

/** prom-client's escaping of a HELP text and of a label value (registry.js `escapeString`, `escapeLabelValue`). */
const escapeText = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (value: string) => escapeText(value).replace(/"/g, '\\"');
const labelPairs = (entries: Iterable<readonly [string, string]>) => Array.from(entries, ([name, value]) => `${name}="${escapeLabel(value)}"`).join(',');
/** prom-client's number format (util.js `getValueAsString`). */
const valueText = (value: number) => (Number.isNaN(value) ? 'Nan' : value === Infinity ? '+Inf' : value === -Infinity ? '-Inf' : `${value}`);
const braced = (...parts: string[]) => {
  const inner = parts.filter((p) => p !== '').join(',');
  return inner === '' ? '' : `{${inner}}`;
};

/** One family: its series by their label values, found once per distinct set. */
abstract class LeanFamily<T extends string, Child extends Changed> {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator = 'sum';
  protected readonly labelNames: readonly T[];
  private readonly series = new Map<string, Series<Child>>();

  constructor(options: Options<T>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames ?? [];
    for (const registry of options.registers ?? []) registry.registerMetric(this as never);
  }

  /** The series of these label values, made at zero on first use; keep it for the hot path. */
  labels(values: LabelValues<T> = {}): Child {
    const key = this.keyOf(values);
    let entry = this.series.get(key);
    if (entry === undefined) {
      const labels: Record<string, string> = {};
      for (const name of this.labelNames) {
        const value = values[name];
        if (value === undefined) throw new Error(`${this.name}: label ${name} has no value`);
        labels[name] = String(value);
      }
      entry = { labels, child: this.newChild() };
      this.series.set(key, entry);
    }
    return entry.child;
  }

  /** Drops one series (a forgotten flow's, an instance gone). */
  remove(values: LabelValues<T>): void {
    this.series.delete(this.keyOf(values));
  }

  reset(): void {
    this.series.clear();
  }

  /** What prom-client's registry writes out. */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const { labels, child } of this.series.values()) this.samples(labels, child, values);
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /**
   * The family in the Prometheus text format, byte for byte what prom-client's registry writes for
   * `get()` (its `getMetricsAsString`), with each series' labels escaped and joined once rather
   * than on every scrape: that formatting was most of a large page's render time.
   */
  pageText(defaultLabels: Readonly<Record<string, string>>, format: MetricsFormat = 'prometheus-text'): string {
    return [...this.pageParts(defaultLabels, Infinity, format)].join('\n');
  }

  /**
   * The same text in parts of at most `seriesPerPart` series (the first part is the HELP and TYPE
   * lines), to be joined with a newline: a writer can let other work run between parts of a family
   * with many series. A series added or removed between parts is written or left out as the map's
   * iteration finds it.
   *
   * A series whose numbers have not changed since it was last written is written from its cached
   * lines: on a page of thousands of tenants' series only the few tenants active since the last
   * scrape cost any formatting (a histogram series is ~16 lines of number-to-text), which is what
   * scrapes back to back (several Prometheus replicas, a scrape storm) would otherwise repeat.
   * The cost is the lean part of the page held in memory between scrapes (bounded as the page is:
   * docs/metrics.md, "Bounded pages").
   *
   * In OpenMetrics (`format`) a counter family is named without `_total`, HELP escapes quotes too,
   * and a histogram writes canonical `le` values and its exemplars; the page's `# EOF` is the
   * page writer's.
   */
  *pageParts(defaultLabels: Readonly<Record<string, string>>, seriesPerPart: number, format: MetricsFormat = 'prometheus-text'): Generator<string> {
    if (format === 'openmetrics') {
      const name = openMetricsFamilyName(this.name, this.type);
      yield `# HELP ${name} ${escapeOpenMetricsHelp(this.help)}\n# TYPE ${name} ${this.type}`;
    } else {
      yield `# HELP ${escapeText(this.name)} ${escapeText(this.help)}\n# TYPE ${escapeText(this.name)} ${this.type}`;
    }
    let lines: string[] = [];
    let inPart = 0;
    for (const series of this.series.values()) {
      let text = series.text;
      if (text?.defaults !== defaultLabels) {
        const own = labelPairs(Object.entries(series.labels));
        const inherited = labelPairs(Object.entries(defaultLabels).filter(([name]) => !Object.hasOwn(series.labels, name)));
        text = series.text = { defaults: defaultLabels, own, inherited };
        series.lines = undefined;
      }
      if (series.lines === undefined || series.child.changed) {
        series.lines = {};
        series.child.changed = false;
      }
      let written = series.lines[format];
      if (written === undefined) {
        const own: string[] = [];
        if (format === 'openmetrics') this.openMetricsLines(text, series.child, own);
        else this.lines(text, series.child, own);
        written = series.lines[format] = own.join('\n');
      }
      lines.push(written);
      if (++inPart >= seriesPerPart) {
        yield lines.join('\n');
        lines = [];
        inPart = 0;
      }
    }
    if (lines.length > 0) yield lines.join('\n');
  }

  protected abstract newChild(): Child;
  protected abstract samples(labels: Record<string, string>, child: Child, into: Sample[]): void;
  /** The series' lines, as prom-client writes its samples. */
  protected abstract lines(text: SeriesText, child: Child, into: string[]): void;
  /** The series' lines in OpenMetrics. */
  protected abstract openMetricsLines(text: SeriesText, child: Child, into: string[]): void;

  private keyOf(values: LabelValues<T>): string {
    let key = '';
    for (const name of this.labelNames) key += `${values[name] ?? ''}\u0001`;
    return key;
  }
}

export interface CounterChild {
  inc(by?: number): void;
}

export class LeanCounter<T extends string = string> extends LeanFamily<T, CounterChild & Changed & { value: number }> {
  readonly type = 'counter';

  inc(values: LabelValues<T> = {}, by = 1): void {
    this.labels(values).inc(by);
  }

  protected newChild(): CounterChild & Changed & { value: number } {
    return {
      value: 0,
      changed: true,
      inc(by = 1) {
        this.value += by;
        this.changed = true;
      },
    };
  }

  protected samples(labels: Record<string, string>, child: { value: number }, into: Sample[]): void {
    into.push({ labels, value: child.value });
  }

  protected lines(text: SeriesText, child: { value: number }, into: string[]): void {
    into.push(`${this.name}${braced(text.own, text.inherited)} ${valueText(child.value)}`);
  }

  protected openMetricsLines(text: SeriesText, child: { value: number }, into: string[]): void {
    into.push(`${counterSampleName(openMetricsFamilyName(this.name, this.type))}${braced(text.own, text.inherited)} ${openMetricsValue(child.value)}`);
  }
}

export interface GaugeChild {
  set(value: number): void;
  inc(by?: number): void;
  dec(by?: number): void;
}

export class LeanGauge<T extends string = string> extends LeanFamily<T, GaugeChild & Changed & { value: number }> {
  readonly type = 'gauge';

  set(values: LabelValues<T>, value: number): void {
    this.labels(values).set(value);
  }

  inc(values: LabelValues<T> = {}, by = 1): void {
    this.labels(values).inc(by);
  }

  dec(values: LabelValues<T> = {}, by = 1): void {
    this.labels(values).dec(by);
  }

  protected newChild(): GaugeChild & Changed & { value: number } {
    return {
      value: 0,
      changed: true,
      set(value) {
        this.value = value;
        this.changed = true;
      },
      inc(by = 1) {
        this.value += by;
        this.changed = true;
      },
      dec(by = 1) {
        this.value -= by;
        this.changed = true;
      },
    };
  }

  protected samples(labels: Record<string, string>, child: { value: number }, into: Sample[]): void {
    into.push({ labels, value: child.value });
  }

  protected lines(text: SeriesText, child: { value: number }, into: string[]): void {
    into.push(`${this.name}${braced(text.own, text.inherited)} ${valueText(child.value)}`);
  }

  protected openMetricsLines(text: SeriesText, child: { value: number }, into: string[]): void {
    into.push(`${this.name}${braced(text.own, text.inherited)} ${openMetricsValue(child.value)}`);
  }
}

export interface HistogramChild {
  /**
   * Counts `value`; with an exemplar (a sampled request's `trace_id`), keeps it as the latest of
   * the bucket the value falls in, for the OpenMetrics page.
   */
  observe(value: number, exemplar?: ExemplarLabels): void;
}

/**
 * The latest exemplar of each bucket (the last entry is +Inf's): one per bucket line, as
 * OpenMetrics allows, so a series' memory is bounded by its buckets whatever the request rate.
 * Made on a series' first exemplar: a histogram observed without them pays nothing.
 */
interface BucketExemplars {
  readonly labels: (ExemplarLabels | undefined)[];
  readonly values: Float64Array;
  /** Wall-clock ms since the epoch. */
  readonly at: Float64Array;
}

interface HistogramSeries extends HistogramChild, Changed {
  readonly counts: Float64Array;
  sum: number;
  count: number;
  exemplars: BucketExemplars | undefined;
}

export interface LeanHistogramOptions<T extends string> extends Options<T> {
  readonly buckets: readonly number[];
  /** How a bound is written in `le` on the 0.0.4 page (default as prom-client: `String(bound)`); OpenMetrics' is canonical. */
  readonly formatLe?: (bound: number) => string;
  /** The wall clock an exemplar is stamped with, in ms since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

export class LeanHistogram<T extends string = string> extends LeanFamily<T, HistogramSeries> {
  readonly type = 'histogram';
  private readonly bounds: Float64Array;
  private readonly le: readonly string[];
  /** `le` values in OpenMetrics: canonical numbers (`1.0`, not `1`). */
  private readonly openLe: readonly string[];
  private readonly now: () => number;

  constructor(options: LeanHistogramOptions<T>) {
    super(options);
    const bounds = [...options.buckets].sort((a, b) => a - b);
    this.bounds = Float64Array.from(bounds);
    this.le = bounds.map(options.formatLe ?? String);
    this.openLe = bounds.map(canonicalBound);
    this.now = options.now ?? Date.now;
  }

  observe(values: LabelValues<T>, value: number, exemplar?: ExemplarLabels): void {
    this.labels(values).observe(value, exemplar);
  }

  protected newChild(): HistogramSeries {
    const bounds = this.bounds;
    const now = this.now;
    return {
      counts: new Float64Array(bounds.length),
      sum: 0,
      count: 0,
      changed: true,
      exemplars: undefined,
      observe(value, exemplar) {
        // The first bound at or above the value (a value above every bound counts in +Inf only).
        let lo = 0;
        let hi = bounds.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (bounds[mid]! < value) lo = mid + 1;
          else hi = mid;
        }
        if (lo < bounds.length) this.counts[lo]! += 1;
        this.sum += value;
        this.count += 1;
        this.changed = true;
        // A NaN falls in no bucket's range, so it carries no exemplar.
        if (exemplar !== undefined && !Number.isNaN(value)) {
          const kept = (this.exemplars ??= { labels: new Array<ExemplarLabels | undefined>(bounds.length + 1), values: new Float64Array(bounds.length + 1), at: new Float64Array(bounds.length + 1) });
          kept.labels[lo] = exemplar;
          kept.values[lo] = value;
          kept.at[lo] = now();
        }
      },
    };
  }

  protected samples(labels: Record<string, string>, child: HistogramSeries, into: Sample[]): void {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    for (let i = 0; i < this.le.length; i++) {
      cumulative += child.counts[i]!;
      into.push({ labels: { le: this.le[i]! }, sharedLabels: labels, value: cumulative, metricName: bucket });
    }
    into.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: child.count, metricName: bucket });
    into.push({ labels: {}, sharedLabels: labels, value: child.sum, metricName: `${this.name}_sum` });
    into.push({ labels: {}, sharedLabels: labels, value: child.count, metricName: `${this.name}_count` });
  }

  protected lines(text: SeriesText, child: HistogramSeries, into: string[]): void {
    // prom-client writes `le` first, then the default labels the series does not set, then the series' own.
    const rest = braced('', text.inherited, text.own);
    const after = rest === '' ? '}' : `,${rest.slice(1)}`;
    let cumulative = 0;
    for (let i = 0; i < this.le.length; i++) {
      cumulative += child.counts[i]!;
      into.push(`${this.name}_bucket{le="${escapeLabel(this.le[i]!)}"${after} ${valueText(cumulative)}`);
    }
    into.push(`${this.name}_bucket{le="+Inf"${after} ${valueText(child.count)}`);
    into.push(`${this.name}_sum${rest} ${valueText(child.sum)}`);
    into.push(`${this.name}_count${rest} ${valueText(child.count)}`);
  }

  /** As `lines`, with canonical `le` values and each bucket's exemplar after its count. */
  protected openMetricsLines(text: SeriesText, child: HistogramSeries, into: string[]): void {
    const rest = braced('', text.inherited, text.own);
    const after = rest === '' ? '}' : `,${rest.slice(1)}`;
    const kept = child.exemplars;
    const exemplarOf = (i: number) => {
      const labels = kept?.labels[i];
      return labels === undefined ? '' : exemplarSuffix(labels, kept!.values[i]!, kept!.at[i]!);
    };
    let cumulative = 0;
    for (let i = 0; i < this.openLe.length; i++) {
      cumulative += child.counts[i]!;
      into.push(`${this.name}_bucket{le="${this.openLe[i]!}"${after} ${openMetricsValue(cumulative)}${exemplarOf(i)}`);
    }
    into.push(`${this.name}_bucket{le="+Inf"${after} ${openMetricsValue(child.count)}${exemplarOf(this.openLe.length)}`);
    into.push(`${this.name}_sum${rest} ${openMetricsValue(child.sum)}`);
    into.push(`${this.name}_count${rest} ${openMetricsValue(child.count)}`);
  }
}
