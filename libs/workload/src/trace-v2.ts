import { seededRandom } from '@sluice/collections';
import { formatFieldIssue, zodFieldIssues } from '@sluice/contracts';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { CsvError, csvLine, parseCsv } from './csv.js';
import type { WorkloadRequest } from './generate.js';
import { traceV2ObservedColumns, type TraceV2Observation } from './trace-v2-observed.js';
import { NO_TOKENS, drawPrompt, drawTokenIds, type TokenIds } from './token-ids.js';
import { SLO_CLASSES, type SloClass, type WorkloadSpec } from './spec.js';

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
 *   rejected; so does this module.
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
 * Designed here (BLIS is silent or does it differently):
 * - The token-id seed is the header's workload_seed (0 when absent), folded to 32 bits; ids are
 *   uniform in [0, TOKEN_VOCAB_SIZE) from mulberry32, so they are not the ids BLIS would make
 *   (BLIS uses Go's math/rand), only the same structure.
 * - Columns are found by name (BLIS reads by position); every base column is required, the four
 *   optional ones are allowed, and columns BLIS does not know are ignored (BLIS also tolerates
 *   extra columns). Each row must have as many fields as the header row.
 * - Rows are sorted stably by injection time and re-indexed 0, 1, 2… (WorkloadRequest.index is
 *   arrival order); request_id is checked but not kept as the index.
 * - An empty slo_class imports as 'standard'; any other class must be one of SLO_CLASSES.
 * - One prefix group must have one prefix_length throughout; prefix_length > 0 needs a group.
 * - Export writes what BLIS's simulator writes for a request that has not run: send_time_us =
 *   arrival_time_us, streaming false, session_id empty, chunk times and counts 0, status empty.
 *
 * Round trip (export, then import) preserves per request: index, clientId, tenantId, sloClass,
 * maxTokens, the input length, and the prefix structure (which requests share a prefix, and its
 * length), given the client→prefix map. arrivalMs is kept to the microsecond (rounded to the
 * nearest µs on export; exact when arrivalMs is a whole number of µs). Token ids are NOT kept:
 * they are regenerated from workload_seed, so importing one trace always gives the same ids, and
 * export → import → export gives the same texts.
 */

/** The CSV columns BLIS always writes, in its order. */
export const TRACE_V2_COLUMNS = [
  'request_id',
  'client_id',
  'tenant_id',
  'slo_class',
  'session_id',
  'round_index',
  'prefix_group',
  'prefix_length',
  'streaming',
  'input_tokens',
  'output_tokens',
  'text_tokens',
  'image_tokens',
  'audio_tokens',
  'video_tokens',
  'reason_ratio',
  'model',
  'deadline_us',
  'server_input_tokens',
  'arrival_time_us',
  'send_time_us',
  'first_chunk_time_us',
  'last_chunk_time_us',
  'num_chunks',
  'status',
  'error_message',
  'finish_reason',
] as const;

/** Columns BLIS writes only when some row needs them. */
export const TRACE_V2_OPTIONAL_COLUMNS = ['vllm_priority', 'slo_target_us', 'x_request_id', 'adapter'] as const;

const nonNegative = () => z.number('must be a number').finite().nonnegative('must be >= 0');
const count = () => z.number('must be a number').int('must be an integer').nonnegative('must be >= 0');

const SloDimTargetsSchema = z.strictObject({ ttft_ms: nonNegative().optional(), itl_ms: nonNegative().optional(), e2e_ms: nonNegative().optional() });

export const TraceV2HeaderSchema = z.strictObject({
  /** 2, or 3 once goodput_slo_targets appeared; BLIS tests write both. */
  trace_version: z.union([z.literal(2), z.literal(3)], 'must be 2 or 3'),
  /** BLIS writes microseconds; the *_us columns are in it. */
  time_unit: z.literal('microseconds', "must be 'microseconds'"),
  created_at: z.string('must be a string').optional(),
  /** real (blis observe), generated (blis run), replayed (blis replay). */
  mode: z.enum(['real', 'generated', 'replayed'], 'must be one of real | generated | replayed').optional(),
  /** The first N requests are warm-up. Carried, not acted on. */
  warm_up_requests: count().optional(),
  /** The workload RNG seed; here also the seed for regenerated token ids. */
  workload_seed: z.number('must be a number').int('must be an integer').refine(Number.isSafeInteger, 'must be a safe integer').optional(),
  /** A spec path or "preset:<name>". */
  workload_spec: z.string('must be a string').optional(),
  server: z
    .strictObject({
      type: z.string('must be a string').optional(),
      model: z.string('must be a string').optional(),
      tensor_parallel: count().optional(),
      max_num_seqs: count().optional(),
      block_size: count().optional(),
      gpu_memory_utilization: nonNegative().optional(),
      max_model_len: count().optional(),
    })
    .optional(),
  network: z.strictObject({ measured_rtt_ms: nonNegative().optional() }).optional(),
  goodput_slo_targets: z.record(z.string(), SloDimTargetsSchema).optional(),
});
export type TraceV2Header = z.infer<typeof TraceV2HeaderSchema>;

/** One CSV row, as parsed (optional columns are absent when the trace lacks them). */
export interface TraceV2Record {
  requestId: number;
  clientId: string;
  tenantId: string;
  sloClass: string;
  vllmPriority?: number;
  sessionId: string;
  roundIndex: number;
  prefixGroup: string;
  prefixLength: number;
  streaming: boolean;
  /** The prompt minus the shared prefix. */
  inputTokens: number;
  outputTokens: number;
  textTokens: number;
  imageTokens: number;
  audioTokens: number;
  videoTokens: number;
  reasonRatio: number;
  model: string;
  deadlineUs: number;
  sloTargetUs?: number;
  serverInputTokens: number;
  arrivalTimeUs: number;
  sendTimeUs: number;
  firstChunkTimeUs: number;
  lastChunkTimeUs: number;
  numChunks: number;
  status: string;
  errorMessage: string;
  finishReason: string;
  xRequestId?: string;
  adapter?: string;
}

/** One problem: in a row (1 = the first data row; 0 = the CSV header row) and column, or a header key. */
export interface TraceV2Issue {
  row?: number;
  column?: string;
  key?: string;
  /** Position of a request passed to exportTraceV2. */
  request?: number;
  message: string;
}

export function formatTraceV2Issue(issue: TraceV2Issue): string {
  const where: string[] = [];
  if (issue.key !== undefined) where.push(`header key ${issue.key}`);
  if (issue.request !== undefined) where.push(`request ${issue.request}`);
  if (issue.row !== undefined) where.push(issue.row === 0 ? 'header row' : `row ${issue.row}`);
  if (issue.column !== undefined) where.push(`column ${issue.column}`);
  return formatFieldIssue({ path: where.join(', '), message: issue.message });
}

const MAX_REPORTED_ISSUES = 50;

/** A trace that does not parse or validate; `issues` lists the problems (the first 50). */
export class TraceV2Error extends Error {
  constructor(readonly issues: readonly TraceV2Issue[]) {
    super(`invalid TraceV2 trace:\n${issues.map((i) => `  ${formatTraceV2Issue(i)}`).join('\n')}`);
    this.name = 'TraceV2Error';
  }
}

/** The shared prefix of a client's requests. */
export interface TracePrefix {
  group: string;
  length: number;
}

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

export interface ImportedTraceV2 {
  meta: TraceV2Header;
  /** The rows in file order. */
  records: TraceV2Record[];
  /** The replayable requests, in injection order. */
  requests: WorkloadRequest[];
  /** Each request's prefix group (undefined = none), by position in `requests`: export takes it back. */
  requestPrefixes: (TracePrefix | undefined)[];
}

/** The client → prefix map of a spec, for exportTraceV2. */
export function tracePrefixesFromSpec(spec: WorkloadSpec): Record<string, TracePrefix> {
  const out: Record<string, TracePrefix> = {};
  for (const c of spec.clients) if (c.prefix_group !== undefined && c.prefix_length !== undefined) out[c.id] = { group: c.prefix_group, length: c.prefix_length };
  return out;
}

// ---------------------------------------------------------------- header

function validateHeader(input: unknown): TraceV2Header {
  const result = TraceV2HeaderSchema.safeParse(input);
  if (!result.success) throw new TraceV2Error(zodFieldIssues(result.error, { input }).map(({ path, message }) => ({ key: path, message })));
  return result.data;
}

/** Parses and validates a TraceV2 header (YAML); unknown keys are errors. */
export function parseTraceV2Header(text: string): TraceV2Header {
  let parsed: unknown;
  try {
    parsed = parseYaml(text) as unknown;
  } catch (error) {
    throw new TraceV2Error([{ message: `header is not valid YAML: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TraceV2Error([{ message: 'header must be a YAML mapping' }]);
  return validateHeader(parsed);
}

/** Header keys in BLIS's struct order. */
const HEADER_ORDER = ['trace_version', 'time_unit', 'created_at', 'mode', 'warm_up_requests', 'workload_seed', 'workload_spec', 'server', 'network', 'goodput_slo_targets'] as const;

function formatHeader(header: TraceV2Header): string {
  const ordered: Record<string, unknown> = {};
  for (const key of HEADER_ORDER) if (header[key] !== undefined) ordered[key] = header[key];
  return stringifyYaml(ordered);
}

// ---------------------------------------------------------------- export

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
  const lines = [csvLine(TRACE_V2_COLUMNS)];
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
    const row: Record<(typeof TRACE_V2_COLUMNS)[number], string> = {
      request_id: String(r.index),
      client_id: r.clientId,
      tenant_id: r.tenantId,
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
      deadline_us: '0',
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
    lines.push(csvLine(TRACE_V2_COLUMNS.map((c) => row[c])));
  });
  if (issues.length > 0) throw new TraceV2Error(issues.slice(0, MAX_REPORTED_ISSUES));
  return { header: formatHeader(header), csv: `${lines.join('\n')}\n` };
}

// ---------------------------------------------------------------- import

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

class RowReader {
  constructor(
    private readonly fields: readonly string[],
    private readonly columns: ReadonlyMap<string, number>,
    private readonly row: number,
    private readonly issues: TraceV2Issue[],
  ) {}

  has(column: string): boolean {
    return this.columns.has(column);
  }

  text(column: string): string {
    return this.fields[this.columns.get(column)!] ?? '';
  }

  fail(column: string, message: string): void {
    this.issues.push({ row: this.row, column, message });
  }

  /** An integer >= 0 (BLIS rejects negatives for all of these but round_index and the times). */
  int(column: string): number {
    const raw = this.text(column).trim();
    if (!NUMBER.test(raw)) {
      this.fail(column, raw === '' ? 'is empty, expected an integer' : `not a number ('${raw}')`);
      return 0;
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || !/^[+-]?\d+$/.test(raw)) this.fail(column, `must be an integer ('${raw}')`);
    else if (value < 0) this.fail(column, `must be >= 0 (${raw})`);
    return value;
  }

  ratio(column: string): number {
    const raw = this.text(column).trim();
    if (!NUMBER.test(raw)) {
      this.fail(column, raw === '' ? 'is empty, expected a number' : `not a number ('${raw}')`);
      return 0;
    }
    const value = Number(raw);
    if (!(value >= 0 && value <= 1)) this.fail(column, `must be in [0, 1] ('${raw}')`);
    return value;
  }

  bool(column: string): boolean {
    const raw = this.text(column).trim();
    if (GO_TRUE.has(raw)) return true;
    if (!GO_FALSE.has(raw)) this.fail(column, `not a boolean ('${raw}'), expected true or false`);
    return false;
  }
}

function readRecord(r: RowReader): TraceV2Record {
  const record: TraceV2Record = {
    requestId: r.int('request_id'),
    clientId: r.text('client_id'),
    tenantId: r.text('tenant_id'),
    sloClass: r.text('slo_class').trim(),
    sessionId: r.text('session_id'),
    roundIndex: r.int('round_index'),
    prefixGroup: r.text('prefix_group'),
    prefixLength: r.int('prefix_length'),
    streaming: r.bool('streaming'),
    inputTokens: r.int('input_tokens'),
    outputTokens: r.int('output_tokens'),
    textTokens: r.int('text_tokens'),
    imageTokens: r.int('image_tokens'),
    audioTokens: r.int('audio_tokens'),
    videoTokens: r.int('video_tokens'),
    reasonRatio: r.ratio('reason_ratio'),
    model: r.text('model'),
    deadlineUs: r.int('deadline_us'),
    serverInputTokens: r.int('server_input_tokens'),
    arrivalTimeUs: r.int('arrival_time_us'),
    sendTimeUs: r.int('send_time_us'),
    firstChunkTimeUs: r.int('first_chunk_time_us'),
    lastChunkTimeUs: r.int('last_chunk_time_us'),
    numChunks: r.int('num_chunks'),
    status: r.text('status'),
    errorMessage: r.text('error_message').trim(),
    finishReason: r.text('finish_reason').trim(),
  };
  if (r.has('vllm_priority')) record.vllmPriority = r.int('vllm_priority');
  if (r.has('slo_target_us')) record.sloTargetUs = r.int('slo_target_us');
  if (r.has('x_request_id')) record.xRequestId = r.text('x_request_id').trim();
  if (r.has('adapter')) record.adapter = r.text('adapter').trim();
  if (record.sloClass !== '' && !(SLO_CLASSES as readonly string[]).includes(record.sloClass))
    r.fail('slo_class', `must be one of ${SLO_CLASSES.join(' | ')} or empty ('${record.sloClass}')`);
  if (record.deadlineUs > 0 && record.arrivalTimeUs > 0 && record.deadlineUs < record.arrivalTimeUs)
    r.fail('deadline_us', `${record.deadlineUs} precedes arrival_time_us ${record.arrivalTimeUs}`);
  if (record.prefixGroup === '' && record.prefixLength > 0) r.fail('prefix_length', `must be 0 without a prefix_group (${record.prefixLength})`);
  return record;
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

  const requests = ordered.map(({ record }, index): WorkloadRequest => {
    const prefix = record.prefixGroup === '' ? NO_TOKENS : (prefixTokens.get(record.prefixGroup) ?? NO_TOKENS);
    return {
      index,
      clientId: record.clientId,
      tenantId: record.tenantId,
      sloClass: record.sloClass === '' ? 'standard' : (record.sloClass as SloClass),
      arrivalMs: injectionUs(record) / 1000,
      inputTokens: drawPrompt(rng, prefix, suffixLength(record)),
      maxTokens: record.outputTokens,
    };
  });
  const requestPrefixes = ordered.map(({ record }) => (record.prefixGroup === '' ? undefined : { group: record.prefixGroup, length: record.prefixLength }));
  return { meta, records, requests, requestPrefixes };
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
