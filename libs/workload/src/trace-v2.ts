/**
 * BLIS "TraceV2" traces: a YAML header and a CSV with one row per request, in two texts (BLIS
 * writes them to two files, e.g. trace.yaml and trace.csv). Pure: the caller reads and writes
 * the files.
 *
 * Taken from BLIS (inference-sim/inference-sim, sim/workload/tracev2.go, replay.go, slo.go):
 * - Header keys: trace_version, time_unit, created_at, mode (real | generated | replayed),
 *   warm_up_requests, workload_seed, workload_spec, server {type, model, tensor_parallel,
 *   max_num_seqs, block_size, gpu_memory_utilization, max_model_len}, network {measured_rtt_ms},
 *   goodput_slo_targets {<class>: {ttft_ms, itl_ms, e2e_ms}}. BLIS decodes it with unknown keys
 *   rejected; so does trace-v2-header.ts.
 * - The 27 CSV columns, in BLIS order (TRACE_V2_COLUMNS), plus the optional vllm_priority,
 *   slo_target_us, x_request_id and adapter columns. Times are integer microseconds.
 * - A row carries token counts, not token ids. input_tokens is the suffix only (the prompt minus
 *   prefix_length); requests of one prefix_group share a prefix of prefix_length tokens.
 * - Replay makes up token ids from a seed: each prefix group's prefix first (in order of first
 *   appearance), then each request's suffix, prefix prepended; the suffix length is
 *   server_input_tokens when that is > 0 and the row has no prefix group, else input_tokens; the
 *   injection time is send_time_us when > 0, else arrival_time_us. Sessions replay open-loop here
 *   (as BLIS's LoadTraceV2Requests does).
 *
 * What sluice decides where BLIS is silent or differs is said where it is done: reading a row
 * (trace-v2-row.ts), importing (trace-v2-import.ts), exporting (trace-v2-export.ts); the header is
 * trace-v2-header.ts, the CSV dialect csv.ts.
 *
 * Round trip (export, then import) preserves per request: index, clientId, fairnessId, sloClass,
 * maxTokens, the input length, and the prefix structure (which requests share a prefix, and its
 * length), given the client→prefix map; SLO targets given the header's goodput_slo_targets (a
 * client's own TPOT or E2E target has no column and is lost); deadlineMs (deadline_us) to the µs.
 * arrivalMs is kept to the microsecond (rounded to the
 * nearest µs on export; exact when arrivalMs is a whole number of µs). Token ids are NOT kept:
 * they are regenerated from workload_seed, so importing one trace always gives the same ids, and
 * export → import → export gives the same texts.
 */

export { TRACE_V2_COLUMNS, TRACE_V2_OPTIONAL_COLUMNS, TraceV2Error, formatTraceV2Issue, type TracePrefix, type TraceV2Issue, type TraceV2Record } from './trace-v2-format.js';
export { TraceV2HeaderSchema, parseTraceV2Header, type TraceV2Header } from './trace-v2-header.js';
export { exportTraceV2, tracePrefixesFromSpec, type TraceV2, type TraceV2ExportMeta } from './trace-v2-export.js';
export { importTraceV2, type ImportedTraceV2 } from './trace-v2-import.js';
