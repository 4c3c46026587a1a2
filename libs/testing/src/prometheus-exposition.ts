/**
 * Reads a Prometheus text exposition (what `/metrics` serves) into metric families: name and type
 * from the `# TYPE` lines, which prom-client prints even before a metric has a sample, and the
 * label names seen on the samples.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface MetricFamily {
  readonly name: string;
  readonly type: MetricType;
  /** Label names on its samples, without the histogram's `le` and the summary's `quantile`. */
  readonly labels: Set<string>;
  samples: number;
}

/** The series names a family's samples carry: a histogram `x` is read as x_bucket, x_sum, x_count. */
export function seriesNames(family: Pick<MetricFamily, 'name' | 'type'>): string[] {
  switch (family.type) {
    case 'histogram':
      return [`${family.name}_bucket`, `${family.name}_sum`, `${family.name}_count`];
    case 'summary':
      return [family.name, `${family.name}_sum`, `${family.name}_count`];
    case 'counter':
    case 'gauge':
    case 'untyped':
      return [family.name];
  }
}

/** Families by name. A sample whose family has no `# TYPE` line is an error: the text is not what prom-client writes. */
export function parseExposition(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const bySeries = new Map<string, MetricFamily>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      const family: MetricFamily = { name: type[1]!, type: type[2] as MetricType, labels: new Set(), samples: 0 };
      families.set(family.name, family);
      for (const series of seriesNames(family)) bySeries.set(series, family);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const sample = /^([A-Za-z_:][\w:]*)(\{.*\})?\s/.exec(line);
    if (!sample) throw new Error(`not an exposition line: ${line}`);
    const family = bySeries.get(sample[1]!);
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    family.samples++;
    for (const label of (sample[2] ?? '').matchAll(/([A-Za-z_]\w*)="(?:[^"\\]|\\.)*"/g)) {
      if (label[1] !== 'le' && label[1] !== 'quantile') family.labels.add(label[1]!);
    }
  }
  return families;
}

/** One sample line: its series name, every label (with `le`) and its value. */
export interface Sample {
  readonly series: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every sample of a page, in order; comments and blank lines skipped. */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(/([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g)) labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ series: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}
