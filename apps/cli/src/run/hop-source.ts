import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import type { RunRecord } from '@sluice/metrics';
import { basename } from 'node:path';
import { readReportJson } from '@sluice/report';
import { hopLatenciesOf, hopProfileOf, hopSamplesFromRecords, hopSamplesOf, hopsFromRecords, medianSample, type HopLatencies, type HopProfile, type HopSample } from '@sluice/twin';

/** How the twin takes a live path: each request draws a whole measured path, or every request takes each hop's median. */
export type HopSampling = 'empirical' | 'paired' | 'median';
export const HOP_SAMPLINGS: readonly HopSampling[] = ['empirical', 'paired', 'median'];

/** What the twin gets from `--hop-latency-from` or `twin.hopProfile`: per-request paths, or constants. */
export interface HopSource {
  readonly samples?: readonly HopSample[];
  /** Each request takes its live counterpart's path (`paired`). */
  readonly paired?: boolean;
  readonly hops?: HopLatencies;
  /** Every live path the file held, whatever the sampling (what `--save-hop-profile` keeps); none for a report without per-hop timings. */
  readonly paths?: readonly HopSample[];
  /** What report.json says of it (`config.hopSource`). */
  readonly description: { readonly file: string; readonly sampling: HopSampling | 'median-split'; readonly samples: number };
}

/**
 * Reads a hop profile (`sluice-hop-profile`) or a live run's report.json. A report whose answers
 * lack the per-hop timings (one written before the gateway timed each hop) can give only the old
 * constants: each stage's median, and the rest of the path split in the default proportions.
 */
export function readHopSource(file: string, sampling: HopSampling): HopSource {
  const read = readPaths(file);
  if ('records' in read) return { hops: hopsFromRecords(read.records), description: { file, sampling: 'median-split', samples: 0 } };
  const samples = read.paths;
  if (samples.length === 0) throw new Error(`${file}: no served request with its stage timings: nothing to take the hops from`);
  const description = { file, sampling, samples: samples.length };
  if (sampling === 'median') return { hops: hopLatenciesOf(medianSample(samples)), paths: samples, description };
  if (sampling === 'paired' && !samples.some((s) => s.position !== undefined)) throw new Error(`${file}: --hop-sampling paired needs a live run's report (its records name their requests); a hop profile has only paths`);
  return { samples, paired: sampling === 'paired', paths: samples, description };
}

/**
 * The file read once: its paths, or, for a report whose served records carry no per-hop timings,
 * those records (for the older medians).
 */
function readPaths(file: string): { readonly paths: HopSample[] } | { readonly records: readonly RunRecord[] } {
  // A profile is small and starts with its kind; a report is read line by line (it can be large),
  // a streamed run's from the records.ndjson it names.
  if (PROFILE_START.test(firstBytes(file, 200))) return { paths: hopSamplesOf(parseProfile(file, readFileSync(file, 'utf8'))) };
  const records = readReportJson(file).records.map(fromActualSend);
  const paths = hopSamplesFromRecords(records);
  return paths.length === 0 && records.some((r) => r.outcome === 'completed') ? { records } : { paths };
}

/**
 * The record timed from when the client actually sent it. A live record's times count from its
 * scheduled send (`arrivalMs`); a path is what the request met after it left the client, so the
 * client's own lag (`clientLagMs`) is not part of it: the twin's clients are never late, and a lag
 * counted in the residual hop would be charged to the path of every request the twin draws it for.
 * The gateway's `clientSendMs` starts at the actual send too (the client stamps it then).
 */
export function fromActualSend(record: RunRecord): RunRecord {
  return record.clientLagMs ? { ...record, arrivalMs: record.arrivalMs + record.clientLagMs } : record;
}

const PROFILE_START = /^\s*\{\s*"kind"\s*:\s*"sluice-hop-profile"/;

function firstBytes(file: string, count: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(count);
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, count, 0));
  } finally {
    closeSync(fd);
  }
}

function parseProfile(file: string, text: string): HopProfile {
  const profile = JSON.parse(text) as Partial<HopProfile>;
  if (profile.version !== 1) throw new Error(`${file}: hop profile version ${String(profile.version)}; this sluice reads version 1`);
  if (!Array.isArray(profile.columns) || !Array.isArray(profile.samples)) throw new Error(`${file}: a hop profile needs "columns" and "samples" arrays`);
  return { kind: 'sluice-hop-profile', version: 1, name: String(profile.name ?? basename(file)), source: String(profile.source ?? file), columns: profile.columns, samples: profile.samples };
}

/** Keeps the live path of a run as a named hop profile (`--save-hop-profile`). */
export function saveHopProfile(file: string, source: string, samples: readonly HopSample[]): void {
  const name = basename(file).replace(/\.json$/, '').replace(/\.hops$/, '');
  const profile = hopProfileOf(name, source, samples);
  // One sample per line: a profile stays readable and diffs stay small.
  const rows = profile.samples.map((row) => `    ${JSON.stringify(row)}`).join(',\n');
  const head = JSON.stringify({ ...profile, samples: [] }, null, 2).replace(/"samples": \[\]\n\}$/, '');
  writeFileSync(file, `${head}"samples": [\n${rows}\n  ]\n}\n`);
}
