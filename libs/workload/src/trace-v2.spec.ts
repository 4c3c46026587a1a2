import { describe, expect, it } from 'vitest';
import { generateWorkloadRequests, type WorkloadRequest } from './generate.js';
import { TOKEN_VOCAB_SIZE } from './token-ids.js';
import { validateWorkloadSpec } from './spec.js';
import { exportTraceV2, importTraceV2, parseTraceV2Header, TRACE_V2_COLUMNS, TraceV2Error, tracePrefixesFromSpec } from './trace-v2.js';

const SPEC = validateWorkloadSpec({
  seed: 7,
  aggregate_rate: 40,
  num_requests: 200,
  clients: [
    {
      id: 'chat',
      tenant_id: 'acme',
      slo_class: 'critical',
      rate_fraction: 3,
      arrival: { process: 'poisson' },
      input_distribution: { type: 'exponential', params: { mean: 20 } },
      output_distribution: { type: 'constant', params: { value: 32 } },
      prefix_group: 'system-prompt',
      prefix_length: 24,
    },
    {
      id: 'batch',
      tenant_id: 'globex',
      slo_class: 'batch',
      rate_fraction: 1,
      arrival: { process: 'gamma', cv: 2 },
      input_distribution: { type: 'gaussian', params: { mean: 40, std_dev: 10 } },
      output_distribution: { type: 'exponential', params: { mean: 64 } },
    },
  ],
});

/** Longest common prefix of two token lists. */
function lcp(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Every pair's shared-prefix length: what a prefix cache sees. */
function prefixStructure(requests: readonly WorkloadRequest[]): number[][] {
  return requests.map((a) => requests.map((b) => lcp(a.inputTokens, b.inputTokens)));
}

function withoutTokens(r: WorkloadRequest) {
  const { inputTokens, ...rest } = r;
  return { ...rest, inputLength: inputTokens.length };
}

function errorOf(fn: () => unknown): TraceV2Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof TraceV2Error) return error;
    throw error;
  }
  throw new Error('expected a TraceV2Error');
}

const HEADER = 'trace_version: 2\ntime_unit: microseconds\nmode: generated\nwarm_up_requests: 0\nworkload_seed: 42\n';
const COLUMNS = TRACE_V2_COLUMNS.join(',');

/** A row in BLIS column order from the fields that matter here. */
function row(f: { id: number; client: string; fairnessId?: string; slo?: string; group?: string; prefix?: number; input: number; output: number; arrival: number; send?: number; server?: number }): string {
  return [
    f.id,
    f.client,
    f.fairnessId ?? 't',
    f.slo ?? 'standard',
    '', // session_id
    0, // round_index
    f.group ?? '',
    f.prefix ?? 0,
    'false',
    f.input,
    f.output,
    0,
    0,
    0,
    0,
    0, // reason_ratio
    '', // model
    0, // deadline_us
    f.server ?? 0,
    f.arrival,
    f.send ?? 0,
    0,
    0,
    0,
    'ok',
    '',
    'stop',
  ].join(',');
}

describe('exportTraceV2 / importTraceV2 round trip', () => {
  const originals = generateWorkloadRequests(SPEC);
  const meta = { header: { workload_seed: SPEC.seed, workload_spec: 'workload.yaml' }, prefixes: tracePrefixesFromSpec(SPEC) };
  const trace = exportTraceV2(originals, meta);
  const imported = importTraceV2(trace.header, trace.csv);

  it('writes BLIS columns, a suffix-only input_tokens and integer microseconds', () => {
    const lines = trace.csv.trimEnd().split('\n');
    expect(lines[0]).toBe(COLUMNS);
    expect(lines).toHaveLength(originals.length + 1);
    const first = originals[0]!;
    const fields = lines[1]!.split(',');
    const at = (c: string) => fields[TRACE_V2_COLUMNS.indexOf(c as (typeof TRACE_V2_COLUMNS)[number])];
    const prefix = first.clientId === 'chat' ? 24 : 0;
    expect(at('input_tokens')).toBe(String(first.inputTokens.length - prefix));
    expect(at('prefix_length')).toBe(String(prefix));
    expect(at('arrival_time_us')).toBe(String(Math.round(first.arrivalMs * 1000)));
    expect(at('send_time_us')).toBe(at('arrival_time_us'));
    expect(trace.header).toBe('trace_version: 2\ntime_unit: microseconds\nmode: generated\nwarm_up_requests: 0\nworkload_seed: 7\nworkload_spec: workload.yaml\n');
  });

  it('keeps index, client, tenant, class, max tokens, input length and µs arrival of every request', () => {
    expect(imported.requests.map(withoutTokens)).toEqual(originals.map((r) => withoutTokens({ ...r, arrivalMs: Math.round(r.arrivalMs * 1000) / 1000 })));
    expect(new Set(imported.requests.map((r) => r.clientId))).toEqual(new Set(['chat', 'batch']));
  });

  it('keeps the shared-prefix structure exactly (token ids are regenerated)', () => {
    expect(prefixStructure(imported.requests)).toEqual(prefixStructure(originals));
    const chat = imported.requests.filter((r) => r.clientId === 'chat');
    for (const r of chat) expect(r.inputTokens.slice(0, 24)).toEqual(chat[0]!.inputTokens.slice(0, 24));
    for (const r of imported.requests) for (const t of r.inputTokens) expect(Number.isInteger(t) && t >= 0 && t < TOKEN_VOCAB_SIZE).toBe(true);
  });

  it('is a fixed point: importing is deterministic and re-exporting gives the same texts', () => {
    expect(importTraceV2(trace.header, trace.csv)).toEqual(imported);
    expect(exportTraceV2(imported.requests, meta)).toEqual(trace);
  });

  it('keeps arrivals exactly when they are whole microseconds', () => {
    const exact = originals.map((r) => ({ ...r, arrivalMs: Math.round(r.arrivalMs * 1000) / 1000 }));
    const again = importTraceV2(...(Object.values(exportTraceV2(exact, meta)) as [string, string]));
    expect(again.requests.map((r) => r.arrivalMs)).toEqual(exact.map((r) => r.arrivalMs));
  });

  it('without a prefix map writes whole prompts and no groups', () => {
    const plain = importTraceV2(...(Object.values(exportTraceV2(originals.slice(0, 5))) as [string, string]));
    expect(plain.records.every((r) => r.prefixGroup === '' && r.prefixLength === 0)).toBe(true);
    expect(plain.requests.map((r) => r.inputTokens.length)).toEqual(originals.slice(0, 5).map((r) => r.inputTokens.length));
  });

  it('refuses to export requests that contradict their prefix group', () => {
    const broken = originals.map((r) => ({ ...r, inputTokens: r.inputTokens.slice() }));
    const second = broken.filter((r) => r.clientId === 'chat')[1]!;
    second.inputTokens[3] = (second.inputTokens[3]! + 1) % TOKEN_VOCAB_SIZE;
    expect(errorOf(() => exportTraceV2(broken, meta)).message).toContain(`request ${second.index}: its first 24 tokens differ`);
  });
});

describe('importTraceV2 of a hand-written trace', () => {
  const csv = [
    `${COLUMNS},vllm_priority,future_column`,
    `${row({ id: 0, client: 'a', fairnessId: 'acme', slo: 'critical', group: 'sys', prefix: 5, input: 3, output: 10, arrival: 2000 })},0,x`,
    `${row({ id: 1, client: '"b,1"', slo: '', input: 7, output: 4, arrival: 500, server: 9 })},2,y`,
    `${row({ id: 2, client: 'a', fairnessId: 'acme', slo: 'critical', group: 'sys', prefix: 5, input: 1, output: 6, arrival: 1000, send: 1500, server: 40 })},0,z`,
    '',
  ].join('\r\n');

  const { meta, records, requests } = importTraceV2(HEADER, csv);

  it('reads the header', () => {
    expect(meta).toEqual({ trace_version: 2, time_unit: 'microseconds', mode: 'generated', warm_up_requests: 0, workload_seed: 42 });
  });

  it('keeps the rows in file order, with the optional columns BLIS knows', () => {
    expect(records.map((r) => [r.requestId, r.clientId, r.vllmPriority, r.finishReason])).toEqual([
      [0, 'a', 0, 'stop'],
      [1, 'b,1', 2, 'stop'],
      [2, 'a', 0, 'stop'],
    ]);
  });

  it('orders requests by injection time (send_time_us when set) and rebuilds their prompts', () => {
    expect(requests.map(withoutTokens)).toEqual([
      // server_input_tokens wins without a prefix group; empty slo_class is standard.
      { index: 0, clientId: 'b,1', fairnessId: 't', sloClass: 'standard', arrivalMs: 0.5, maxTokens: 4, inputLength: 9 },
      // sent at 1500 µs; with a prefix group input_tokens is the suffix and server_input_tokens is ignored.
      { index: 1, clientId: 'a', fairnessId: 'acme', sloClass: 'critical', arrivalMs: 1.5, maxTokens: 6, inputLength: 5 + 1 },
      { index: 2, clientId: 'a', fairnessId: 'acme', sloClass: 'critical', arrivalMs: 2, maxTokens: 10, inputLength: 5 + 3 },
    ]);
    expect(requests[1]!.inputTokens.slice(0, 5)).toEqual(requests[2]!.inputTokens.slice(0, 5));
    expect(lcp(requests[0]!.inputTokens, requests[1]!.inputTokens)).toBe(0);
  });

  it('draws token ids from workload_seed', () => {
    expect(importTraceV2(HEADER, csv).requests).toEqual(requests);
    const other = importTraceV2(HEADER.replace('workload_seed: 42', 'workload_seed: 43'), csv).requests;
    expect(other.map(withoutTokens)).toEqual(requests.map(withoutTokens));
    expect(other[1]!.inputTokens).not.toEqual(requests[1]!.inputTokens);
  });
});

describe('importTraceV2 errors', () => {
  const good = [COLUMNS, row({ id: 0, client: 'a', input: 3, output: 4, arrival: 0 }), row({ id: 1, client: 'a', input: 3, output: 4, arrival: 100 })];

  it('names a missing column', () => {
    const drop = TRACE_V2_COLUMNS.indexOf('arrival_time_us');
    const csv = good.map((line) => line.split(',').filter((_, i) => i !== drop).join(',')).join('\n');
    expect(errorOf(() => importTraceV2(HEADER, csv)).message).toContain('header row, column arrival_time_us: missing');
  });

  it('names the row and column of a non-numeric value', () => {
    const fields = row({ id: 2, client: 'a', input: 3, output: 4, arrival: 0 }).split(',');
    fields[TRACE_V2_COLUMNS.indexOf('arrival_time_us')] = 'soon';
    const csv = [...good, fields.join(',')].join('\n');
    const error = errorOf(() => importTraceV2(HEADER, csv));
    expect(error.message).toContain("row 3, column arrival_time_us: not a number ('soon')");
    expect(error.issues).toEqual([{ row: 3, column: 'arrival_time_us', message: "not a number ('soon')" }]);
  });

  it('names non-integer, negative and non-boolean values', () => {
    const csv = [COLUMNS, row({ id: 0, client: 'a', input: -3, output: 4, arrival: 0 }).replace(',false,', ',maybe,'), row({ id: 1.5, client: 'a', input: 3, output: 4, arrival: 0 })].join('\n');
    expect(errorOf(() => importTraceV2(HEADER, csv)).issues).toEqual([
      { row: 1, column: 'streaming', message: "not a boolean ('maybe'), expected true or false" },
      { row: 1, column: 'input_tokens', message: 'must be >= 0 (-3)' },
      { row: 2, column: 'request_id', message: "must be an integer ('1.5')" },
    ]);
  });

  it('names a row with the wrong number of columns', () => {
    const csv = [...good.slice(0, 2), `${good[2]},extra`].join('\n');
    expect(errorOf(() => importTraceV2(HEADER, csv)).message).toContain(`row 2: has ${TRACE_V2_COLUMNS.length + 1} columns, expected ${TRACE_V2_COLUMNS.length}`);
  });

  it('names an unknown slo_class and an inconsistent prefix_length', () => {
    const csv = [
      COLUMNS,
      row({ id: 0, client: 'a', slo: 'urgent', input: 3, output: 4, arrival: 0 }),
      row({ id: 1, client: 'a', group: 'g', prefix: 8, input: 3, output: 4, arrival: 0 }),
      row({ id: 2, client: 'a', group: 'g', prefix: 9, input: 3, output: 4, arrival: 0 }),
    ].join('\n');
    const { message } = errorOf(() => importTraceV2(HEADER, csv));
    expect(message).toContain("row 1, column slo_class: must be one of critical | standard | batch | sheddable | background or empty ('urgent')");
    expect(message).toContain("row 3, column prefix_length: 9 differs from 8 (row 2) for prefix group 'g'");
  });

  it('names broken CSV quoting', () => {
    expect(errorOf(() => importTraceV2(HEADER, `${COLUMNS}\n"a,b`)).message).toContain('row 1: unterminated quoted field');
  });

  it('names unknown and invalid header keys', () => {
    expect(errorOf(() => importTraceV2(`${HEADER}seed: 3\n`, good.join('\n'))).message).toContain('header key seed: unknown key');
    expect(errorOf(() => parseTraceV2Header(`${HEADER}server:\n  gpus: 8\n`)).issues).toEqual([{ key: 'server.gpus', message: 'unknown key' }]);
    expect(errorOf(() => parseTraceV2Header('trace_version: 2\ntime_unit: ms\n')).issues).toEqual([{ key: 'time_unit', message: 'must be microseconds' }]);
    expect(errorOf(() => parseTraceV2Header('time_unit: microseconds\n')).issues).toEqual([{ key: 'trace_version', message: 'is required' }]);
  });

  it('accepts a full BLIS header', () => {
    const header = parseTraceV2Header(
      [
        'trace_version: 3',
        'time_unit: microseconds',
        'created_at: "2025-01-01T00:00:00Z"',
        'mode: real',
        'warm_up_requests: 10',
        'workload_seed: 9007199254740991',
        'workload_spec: preset:chatbot',
        'server: { type: vllm, model: m, tensor_parallel: 8, max_num_seqs: 256, block_size: 16, gpu_memory_utilization: 0.9, max_model_len: 131072 }',
        'network: { measured_rtt_ms: 1.5 }',
        'goodput_slo_targets: { critical: { ttft_ms: 500, itl_ms: 50, e2e_ms: 30000 } }',
      ].join('\n'),
    );
    expect(header.server?.tensor_parallel).toBe(8);
    expect(header.goodput_slo_targets?.critical?.e2e_ms).toBe(30000);
  });
});
