import { seededRandom } from '@sluice/collections';
import { CsvError, parseCsv } from './csv.js';
import type { WorkloadRequest } from './generate.js';
import type { SloTargets } from '@sluice/contracts';
import type { SloClass } from './spec.js';
import { NO_TOKENS, drawPrompt, drawTokenIds, type TokenIds } from './token-ids.js';
import { MAX_REPORTED_ISSUES, TRACE_V2_COLUMNS, TraceV2Error, type TracePrefix, type TraceV2Issue, type TraceV2Record } from './trace-v2-format.js';
import { parseTraceV2Header, type TraceV2Header } from './trace-v2-header.js';
import { RowReader, readRecord } from './trace-v2-row.js';

/**
 * A TraceV2 trace (trace-v2.ts) read into replayable requests. Designed here (BLIS is silent or
 * does it differently):
 * - Columns are found by name (BLIS reads by position); every base column is required, the four
 *   optional ones are allowed, and columns BLIS does not know are ignored (BLIS also tolerates
 *   extra columns). Each row must have as many fields as the header row.
 * - Rows are sorted stably by injection time and re-indexed 0, 1, 2… (WorkloadRequest.index is
 *   arrival order); request_id is checked but not kept as the index.
 * - One prefix group must have one prefix_length throughout.
 * - The token-id seed is the header's workload_seed (0 when absent), folded to 32 bits; ids are
 *   uniform in [0, TOKEN_VOCAB_SIZE) from mulberry32, so they are not the ids BLIS would make
 *   (BLIS uses Go's math/rand), only the same structure.
 */

export interface ImportedTraceV2 {
  meta: TraceV2Header;
  /** The rows in file order. */
  records: TraceV2Record[];
  /** The replayable requests, in injection order. */
  requests: WorkloadRequest[];
  /** Each request's prefix group (undefined = none), by position in `requests`: export takes it back. */
  requestPrefixes: (TracePrefix | undefined)[];
}

/** The 32-bit mulberry32 seed of a (64-bit) workload_seed: its value mod 2³². */
function tokenSeed(seed: number | undefined): number {
  const s = seed ?? 0;
  return ((s % 4294967296) + 4294967296) % 4294967296;
}

/** BLIS's rule: the server's count when it has one and there is no prefix (it would include it). */
function suffixLength(record: TraceV2Record): number {
  return record.serverInputTokens > 0 && record.prefixGroup === '' ? record.serverInputTokens : record.inputTokens;
}

/**
 * Parses a TraceV2 header (YAML) and CSV into replayable requests, regenerating token ids from
 * the header's workload_seed (see the module comment). Throws TraceV2Error naming the header key,
 * or the row and column, of each problem.
 */
export function importTraceV2(header: string, csv: string): ImportedTraceV2 {
  const meta = parseTraceV2Header(header);
  const table = csvRecords(csv);
  const names = table[0];
  if (names === undefined) throw new TraceV2Error([{ row: 0, message: 'the CSV is empty (no header row)' }]);

  const issues: TraceV2Issue[] = [];
  const columns = new Map<string, number>();
  names.forEach((raw, i) => {
    const name = raw.trim();
    if (columns.has(name)) issues.push({ row: 0, column: name, message: 'appears twice' });
    else columns.set(name, i);
  });
  for (const c of TRACE_V2_COLUMNS) if (!columns.has(c)) issues.push({ row: 0, column: c, message: 'missing' });
  if (issues.length > 0) throw new TraceV2Error(issues);

  const records: TraceV2Record[] = [];
  const groupLengths = new Map<string, { length: number; row: number }>();
  for (let row = 1; row < table.length && issues.length < MAX_REPORTED_ISSUES; row++) {
    const fields = table[row]!;
    if (fields.length !== names.length) {
      issues.push({ row, message: `has ${fields.length} columns, expected ${names.length} (as the header row)` });
      continue;
    }
    const before = issues.length;
    const record = readRecord(new RowReader(fields, columns, row, issues));
    if (record.prefixGroup !== '' && issues.length === before) {
      const known = groupLengths.get(record.prefixGroup);
      if (known === undefined) groupLengths.set(record.prefixGroup, { length: record.prefixLength, row });
      else if (known.length !== record.prefixLength)
        issues.push({ row, column: 'prefix_length', message: `${record.prefixLength} differs from ${known.length} (row ${known.row}) for prefix group '${record.prefixGroup}'` });
    }
    records.push(record);
  }
  if (issues.length > 0) throw new TraceV2Error(issues.slice(0, MAX_REPORTED_ISSUES));

  // Injection order (stable), as BLIS: send_time_us when set, else arrival_time_us.
  const injectionUs = (r: TraceV2Record) => (r.sendTimeUs > 0 ? r.sendTimeUs : r.arrivalTimeUs);
  const ordered = records.map((record, row) => ({ record, row })).sort((a, b) => injectionUs(a.record) - injectionUs(b.record) || a.row - b.row);

  const rng = seededRandom(tokenSeed(meta.workload_seed));
  const prefixTokens = new Map<string, TokenIds>();
  for (const { record } of ordered)
    if (record.prefixGroup !== '' && record.prefixLength > 0 && !prefixTokens.has(record.prefixGroup)) prefixTokens.set(record.prefixGroup, drawTokenIds(rng, record.prefixLength));

  const classTargets = sloTargetsByClass(meta);
  const requests = ordered.map(({ record }, index): WorkloadRequest => {
    const prefix = record.prefixGroup === '' ? NO_TOKENS : (prefixTokens.get(record.prefixGroup) ?? NO_TOKENS);
    const request: WorkloadRequest = {
      index,
      clientId: record.clientId,
      fairnessId: record.fairnessId,
      sloClass: record.sloClass === '' ? 'standard' : (record.sloClass as SloClass),
      arrivalMs: injectionUs(record) / 1000,
      inputTokens: drawPrompt(rng, prefix, suffixLength(record)),
      maxTokens: record.outputTokens,
    };
    const slo = rowSloTargets(classTargets.get(record.sloClass === '' ? 'default' : record.sloClass), record.sloTargetUs ?? 0);
    if (slo !== undefined) request.slo = slo;
    if (record.deadlineUs > 0) request.deadlineMs = record.deadlineUs / 1000;
    return request;
  });
  const requestPrefixes = ordered.map(({ record }) => (record.prefixGroup === '' ? undefined : { group: record.prefixGroup, length: record.prefixLength }));
  return { meta, records, requests, requestPrefixes };
}

/**
 * The header's `goodput_slo_targets` per class, as sluice's targets: BLIS's per-request `itl_ms`
 * is its mean gap after the first token, sluice's TPOT; a 0 is "not gated" (BLIS checks > 0).
 * BLIS looks a row with an empty slo_class up as "default" (sim/cluster/metrics.go,
 * SLOAttainmentMultiDim, inference-sim/inference-sim@f90a1e3a6787da17c2cd463dab6fb2660b1b1760).
 */
export function sloTargetsByClass(header: TraceV2Header): Map<string, SloTargets> {
  const out = new Map<string, SloTargets>();
  for (const [sloClass, t] of Object.entries(header.goodput_slo_targets ?? {})) {
    const targets = { ...(t.ttft_ms ? { ttftMs: t.ttft_ms } : {}), ...(t.itl_ms ? { tpotMs: t.itl_ms } : {}), ...(t.e2e_ms ? { e2eMs: t.e2e_ms } : {}) };
    if (Object.keys(targets).length > 0) out.set(sloClass, Object.freeze(targets));
  }
  return out;
}

/**
 * A row's targets: its class's, with the row's own `slo_target_us` (BLIS's per-request TTFT
 * target, what its slo-deadline ordering reads: sim/request.go, SLOTargetUs) as its TTFT target
 * when set. Rows without one of their own share their class's object.
 */
function rowSloTargets(ofClass: SloTargets | undefined, sloTargetUs: number): SloTargets | undefined {
  if (sloTargetUs <= 0) return ofClass;
  return Object.freeze({ ...ofClass, ttftMs: sloTargetUs / 1000 });
}

/** The CSV's records; broken quoting is a TraceV2Error naming the row (record 0 is the header row). */
function csvRecords(csv: string): string[][] {
  try {
    return parseCsv(csv);
  } catch (error) {
    if (error instanceof CsvError) throw new TraceV2Error([{ row: error.record, message: error.reason }]);
    throw error;
  }
}
