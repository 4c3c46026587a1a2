import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { formatFieldIssue } from '@sluice/contracts';
import {
  TraceV2Error,
  WorkloadError,
  formatTraceV2Issue,
  generateWorkloadRequests,
  importTraceV2,
  parseWorkloadSpec,
  tracePrefixesFromSpec,
  goodputSloTargetsOf,
  type TraceV2ExportMeta,
  type TraceV2Header,
  type WorkloadRequest,
  type WorkloadSpec,
} from '@sluice/workload';

/**
 * What `sluice run` and `sluice simulate` take as a workload: a workload spec (YAML), or a BLIS
 * TraceV2 trace given as its header (NAME.yaml, NAME.csv beside it), its CSV (NAME.csv, NAME.yaml
 * beside it) or a folder holding exactly one such pair. One reader, so both commands accept the
 * same things with the same errors.
 */
export interface WorkloadInput {
  /** What the report records as workload.file: the spec, or the trace's header. */
  readonly file: string;
  /** What the report records as workload.spec: the parsed spec, or the trace's header. */
  readonly spec: WorkloadSpec | TraceV2Header;
  readonly kind: 'spec' | 'trace';
  /**
   * In arrival order; a trace's are open-loop at its injection times. A spec's are generated when
   * first read (a streamed `sluice simulate` reads them from the generator instead, one at a time).
   */
  readonly requests: readonly WorkloadRequest[];
  /** Seed of the run's own random draws (backoff jitter, the twin's tie-breaks stay with --seed). */
  readonly seed: number;
  /** How `--export-trace` writes this workload back (header and prefix structure, without the observed columns). */
  readonly traceMeta: Omit<TraceV2ExportMeta, 'observed'>;
}

/** A workload path that is not a readable spec or trace: the file, the problem, then one line per issue. */
export class WorkloadInputError extends Error {
  override readonly name = 'WorkloadInputError';

  constructor(
    readonly file: string,
    readonly problem: string,
    readonly issues: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${problem}${issues.map((i) => `\n  ${i}`).join('')}`, options);
  }
}

const HEADER_EXTENSIONS = ['.yaml', '.yml'] as const;
/** BLIS's header always starts with (and a spec never has) trace_version. */
const TRACE_HEADER = /^trace_version\s*:/m;

/** Reads a workload spec or a TraceV2 trace from a path (file or folder); throws WorkloadInputError. */
export function readWorkloadInput(path: string): WorkloadInput {
  if (!existsSync(path)) throw new WorkloadInputError(path, 'does not exist');
  if (statSync(path).isDirectory()) {
    const header = traceInFolder(path);
    return readTrace(header, csvBeside(header));
  }
  if (extname(path).toLowerCase() === '.csv') return readTrace(headerBeside(path), path);
  const text = readText(path);
  if (TRACE_HEADER.test(text)) return readTrace(path, csvBeside(path));
  return workloadInputFromSpec(path, parseSpec(path, text));
}

/** A parsed spec as a workload input (also for a chaos scenario's workload). */
export function workloadInputFromSpec(file: string, spec: WorkloadSpec): WorkloadInput {
  let requests: WorkloadRequest[] | undefined;
  return {
    file,
    spec,
    kind: 'spec',
    get requests() {
      return (requests ??= generateWorkloadRequests(spec));
    },
    seed: spec.seed ?? 0,
    traceMeta: { header: { mode: 'generated', workload_spec: file, ...(spec.seed === undefined ? {} : { workload_seed: spec.seed }), ...goodputHeaderOf(spec) }, prefixes: tracePrefixesFromSpec(spec) },
  };
}

function readTrace(headerFile: string, csvFile: string): WorkloadInput {
  let imported;
  try {
    imported = importTraceV2(readText(headerFile), readText(csvFile));
  } catch (error) {
    if (error instanceof TraceV2Error) throw new WorkloadInputError(`${headerFile} + ${basename(csvFile)}`, 'is not a valid TraceV2 trace:', error.issues.map(formatTraceV2Issue), { cause: error });
    throw error;
  }
  const { meta, requests, requestPrefixes } = imported;
  return {
    file: headerFile,
    spec: meta,
    kind: 'trace',
    requests,
    seed: meta.workload_seed ?? 0,
    // A run of a trace is a replay of it (BLIS's mode for `blis replay`'s output).
    traceMeta: { header: { ...meta, mode: 'replayed' }, requestPrefixes },
  };
}

function parseSpec(file: string, text: string): WorkloadSpec {
  try {
    return parseWorkloadSpec(text);
  } catch (error) {
    if (error instanceof WorkloadError) throw new WorkloadInputError(file, 'is not a valid workload:', error.issues.map(formatFieldIssue), { cause: error });
    throw error;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new WorkloadInputError(file, `cannot be read: ${(error as Error).message}`, [], { cause: error });
  }
}

const stem = (file: string) => file.slice(0, file.length - extname(file).length);

function csvBeside(headerFile: string): string {
  const csv = `${stem(headerFile)}.csv`;
  if (!existsSync(csv)) throw new WorkloadInputError(headerFile, `is a TraceV2 header, but its CSV ${csv} does not exist (a trace is NAME.yaml with NAME.csv beside it)`);
  return csv;
}

function headerBeside(csvFile: string): string {
  const candidates = HEADER_EXTENSIONS.map((ext) => `${stem(csvFile)}${ext}`);
  const found = candidates.find((f) => existsSync(f));
  if (found === undefined) throw new WorkloadInputError(csvFile, `is a TraceV2 CSV, but its header ${candidates[0]} does not exist (a trace is NAME.yaml with NAME.csv beside it)`);
  return found;
}

/** The header of the one NAME.yaml + NAME.csv pair in a folder. */
function traceInFolder(dir: string): string {
  const names = new Set(readdirSync(dir));
  const headers = [...names].filter((n) => (HEADER_EXTENSIONS as readonly string[]).includes(extname(n).toLowerCase()) && names.has(`${stem(n)}.csv`)).sort();
  if (headers.length === 0) throw new WorkloadInputError(dir, 'holds no TraceV2 trace (a NAME.yaml with NAME.csv beside it)');
  if (headers.length > 1) throw new WorkloadInputError(dir, `holds ${headers.length} traces; name one of them:`, headers.map((h) => join(dir, h)));
  return join(dir, headers[0]!);
}

/** The spec's class targets for an exported trace's header (none: no key). */
function goodputHeaderOf(spec: WorkloadSpec): { goodput_slo_targets?: NonNullable<ReturnType<typeof goodputSloTargetsOf>> } {
  const targets = goodputSloTargetsOf(spec);
  return targets === undefined ? {} : { goodput_slo_targets: targets };
}
