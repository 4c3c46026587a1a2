/**
 * Reads what a service's `/metrics` serves (the Prometheus text format) into samples, and sums
 * them. Pure; the invariants work on these numbers, never on HTTP.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of every sample of `name` whose labels include each of `where`'s (0 if none). */
export function sumOf(samples: readonly Sample[], name: string, where: Readonly<Record<string, string | readonly string[]>> = {}): number {
  let sum = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(where).every(([k, v]) => (typeof v === 'string' ? s.labels[k] === v : v.includes(s.labels[k] ?? '')))) sum += s.value;
  }
  return sum;
}

/** Sums of `name` by the value of one label, e.g. migrations by reason. */
export function sumBy(samples: readonly Sample[], name: string, label: string): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = s.labels[label] ?? '';
    sums[key] = (sums[key] ?? 0) + s.value;
  }
  return sums;
}

/** Whether the exposition has any sample of `name` (a metric the build does not have yet is absent). */
export function has(samples: readonly Sample[], name: string): boolean {
  return samples.some((s) => s.name === name);
}
