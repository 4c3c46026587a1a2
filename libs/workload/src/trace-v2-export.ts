import { csvLine } from './csv.js';
import type { WorkloadRequest } from './generate.js';
import type { WorkloadSpec } from './spec.js';
import type { TokenIds } from './token-ids.js';
import { MAX_REPORTED_ISSUES, TRACE_V2_COLUMNS, TraceV2Error, type TracePrefix, type TraceV2Issue } from './trace-v2-format.js';
import { formatHeader, validateHeader, type TraceV2Header } from './trace-v2-header.js';
import { sloTargetsByClass } from './trace-v2-import.js';
import { traceV2ObservedColumns, type TraceV2Observation } from './trace-v2-observed.js';

/**
 * Requests as a TraceV2 trace (trace-v2.ts). Designed here: export writes what BLIS's simulator
 * writes for a request that has not run (send_time_us = arrival_time_us, streaming false,
 * session_id empty, chunk times and counts 0, status empty), unless `observed` says what became
 * of it. SLO targets go back as BLIS keeps them: per class in the header's goodput_slo_targets
 * (given in `header`), a row's own TTFT target in slo_target_us; a client's own TPOT or E2E
 * target has no column in TraceV2 and is not written.
 */

export interface TraceV2ExportMeta {
  /** Merged over { trace_version: 2 (3 with goodput_slo_targets), time_unit: microseconds, mode: generated, warm_up_requests: 0 }. */
  header?: Partial<TraceV2Header>;
  /**
   * Prefix group of each client, by client id (see tracePrefixesFromSpec). WorkloadRequest does
   * not say which of its tokens are a shared prefix, so without this every row has no group and
   * input_tokens is the whole prompt.
   */
  prefixes?: Readonly<Record<string, TracePrefix>>;
  /**
   * Prefix of each request, by position (a trace's groups belong to rows, not clients: see
   * ImportedTraceV2.requestPrefixes). Where given, it wins over `prefixes`; undefined = no group.
   */
  requestPrefixes?: readonly (TracePrefix | undefined)[];
  /**
   * What became of each request, by position (see trace-v2-observed.ts): fills the observed
   * columns. Without it (or for an undefined entry) they are written as for a request that has
   * not run. send_time_us stays arrival_time_us either way, as BLIS's replay writes it, so that
   * import gives back the same arrivals.
   */
  observed?: readonly (TraceV2Observation | undefined)[];
}

export interface TraceV2 {
  header: string;
  csv: string;
}

/** The client → prefix map of a spec, for exportTraceV2. */
export function tracePrefixesFromSpec(spec: WorkloadSpec): Record<string, TracePrefix> {
  const out: Record<string, TracePrefix> = {};
  for (const c of spec.clients) if (c.prefix_group !== undefined && c.prefix_length !== undefined) out[c.id] = { group: c.prefix_group, length: c.prefix_length };
  return out;
}

/**
 * A trace of the requests: the YAML header and the CSV, as BLIS writes them to two files.
 * Throws TraceV2Error for an invalid header or a request that contradicts its prefix group.
 */
export function exportTraceV2(requests: readonly WorkloadRequest[], meta: TraceV2ExportMeta = {}): TraceV2 {
  const given = meta.header ?? {};
  const header = validateHeader({
    trace_version: given.goodput_slo_targets === undefined ? 2 : 3,
    time_unit: 'microseconds',
    mode: 'generated',
    warm_up_requests: 0,
    ...given,
  });
  const prefixes = meta.prefixes ?? {};
  const issues: TraceV2Issue[] = [];
  const groupTokens = new Map<string, { tokens: TokenIds; request: number }>();
  // A row's own TTFT target where it is not its class's in the header; the column only when a
  // row has one, right after deadline_us, as BLIS writes it (sim/workload/tracev2.go).
  const classTargets = sloTargetsByClass(header);
  const ownTtftUs = requests.map((r) => {
    const ttftMs = r.slo?.ttftMs;
    return ttftMs === undefined || ttftMs === classTargets.get(r.sloClass)?.ttftMs ? 0 : Math.round(ttftMs * 1000);
  });
  const columns: string[] = [...TRACE_V2_COLUMNS];
  if (ownTtftUs.some((us) => us > 0)) columns.splice(columns.indexOf('deadline_us') + 1, 0, 'slo_target_us');
  const lines = [csvLine(columns)];
  requests.forEach((r, position) => {
    const problem = (message: string) => issues.push({ request: position, message });
    if (!Number.isFinite(r.arrivalMs) || r.arrivalMs < 0) problem(`arrivalMs must be a finite number >= 0, got ${r.arrivalMs}`);
    if (!Number.isSafeInteger(r.maxTokens) || r.maxTokens < 0) problem(`maxTokens must be an integer >= 0, got ${r.maxTokens}`);
    const prefix = meta.requestPrefixes === undefined ? prefixes[r.clientId] : meta.requestPrefixes[position];
    let prefixLength = 0;
    if (prefix !== undefined) {
      prefixLength = prefix.length;
      if (!Number.isSafeInteger(prefixLength) || prefixLength < 0) problem(`prefix length of client '${r.clientId}' must be an integer >= 0`);
      else if (r.inputTokens.length < prefixLength) problem(`has ${r.inputTokens.length} input tokens, fewer than the prefix length ${prefixLength} of group '${prefix.group}'`);
      else {
        const tokens = r.inputTokens.slice(0, prefixLength);
        const known = groupTokens.get(prefix.group);
        if (known === undefined) groupTokens.set(prefix.group, { tokens, request: position });
        else if (known.tokens.length !== tokens.length || known.tokens.some((t, i) => t !== tokens[i]))
          problem(`its first ${prefixLength} tokens differ from request ${known.request}'s, though both are in prefix group '${prefix.group}'`);
      }
    }
    const arrivalUs = String(Math.round(r.arrivalMs * 1000));
    const row: Record<(typeof TRACE_V2_COLUMNS)[number] | 'slo_target_us', string> = {
      request_id: String(r.index),
      client_id: r.clientId,
      tenant_id: r.fairnessId,
      slo_class: r.sloClass,
      session_id: '',
      round_index: '0',
      prefix_group: prefix?.group ?? '',
      prefix_length: String(prefixLength),
      streaming: 'false',
      input_tokens: String(r.inputTokens.length - prefixLength),
      output_tokens: String(r.maxTokens),
      text_tokens: '0',
      image_tokens: '0',
      audio_tokens: '0',
      video_tokens: '0',
      reason_ratio: '0',
      model: '',
      deadline_us: r.deadlineMs === undefined ? '0' : String(Math.round(r.deadlineMs * 1000)),
      slo_target_us: String(ownTtftUs[position]),
      server_input_tokens: '0',
      arrival_time_us: arrivalUs,
      send_time_us: arrivalUs,
      first_chunk_time_us: '0',
      last_chunk_time_us: '0',
      num_chunks: '0',
      status: '',
      error_message: '',
      finish_reason: '',
    };
    const observed = meta.observed?.[position];
    if (observed !== undefined) Object.assign(row, traceV2ObservedColumns(observed));
    lines.push(csvLine(columns.map((c) => row[c as keyof typeof row])));
  });
  if (issues.length > 0) throw new TraceV2Error(issues.slice(0, MAX_REPORTED_ISSUES));
  return { header: formatHeader(header), csv: `${lines.join('\n')}\n` };
}
