import { describe, expect, it } from 'vitest';
import { generateWorkloadRequests } from './generate.js';
import { goodputSloTargetsOf, validateWorkloadSpec } from './spec.js';
import { TraceV2Error, exportTraceV2, importTraceV2, parseTraceV2Header } from './trace-v2.js';

const SPEC = validateWorkloadSpec({
  seed: 4,
  aggregate_rate: 20,
  num_requests: 40,
  slo_targets: { critical: { ttft_ms: 200, tpot_ms: 25, e2e_ms: 4000 } },
  clients: [
    { id: 'chat', tenant_id: 'acme', slo_class: 'critical', rate_fraction: 1, arrival: { process: 'poisson' }, input_distribution: { type: 'constant', params: { value: 16 } }, output_distribution: { type: 'constant', params: { value: 4 } } },
    { id: 'agent', tenant_id: 'acme', slo_class: 'critical', rate_fraction: 1, arrival: { process: 'poisson' }, input_distribution: { type: 'constant', params: { value: 16 } }, output_distribution: { type: 'constant', params: { value: 4 } }, slo: { ttft_ms: 50.5 } },
    { id: 'batch', tenant_id: 'globex', slo_class: 'batch', rate_fraction: 1, arrival: { process: 'poisson' }, input_distribution: { type: 'constant', params: { value: 16 } }, output_distribution: { type: 'constant', params: { value: 4 } } },
  ],
});

const HEADER = 'trace_version: 3\ntime_unit: microseconds\n';
const COLUMNS =
  'request_id,client_id,tenant_id,slo_class,session_id,round_index,prefix_group,prefix_length,streaming,input_tokens,output_tokens,text_tokens,image_tokens,audio_tokens,video_tokens,reason_ratio,model,deadline_us,slo_target_us,server_input_tokens,arrival_time_us,send_time_us,first_chunk_time_us,last_chunk_time_us,num_chunks,status,error_message,finish_reason';
const row = (id: number, sloClass: string, deadlineUs: number, sloTargetUs: number, arrivalUs: number) =>
  `${id},c,t,${sloClass},,0,,0,false,8,2,0,0,0,0,0,,${deadlineUs},${sloTargetUs},0,${arrivalUs},${arrivalUs},0,0,0,,,`;

describe('SLO targets in TraceV2', () => {
  it('imports goodput_slo_targets per class (itl_ms as TPOT), slo_target_us as the row’s TTFT target, deadline_us as its deadline', () => {
    const header = `${HEADER}goodput_slo_targets:\n  critical: { ttft_ms: 300, itl_ms: 20 }\n  default: { e2e_ms: 9000 }\n`;
    const csv = [COLUMNS, row(0, 'critical', 0, 0, 1000), row(1, 'critical', 5_000_000, 120_000, 2000), row(2, '', 0, 0, 3000), row(3, 'batch', 0, 0, 4000)].join('\n');
    const { requests } = importTraceV2(header, csv);
    expect(requests.map((r) => r.slo)).toEqual([{ ttftMs: 300, tpotMs: 20 }, { ttftMs: 120, tpotMs: 20 }, { e2eMs: 9000 }, undefined]);
    expect(requests.map((r) => r.deadlineMs)).toEqual([undefined, 5000, undefined, undefined]);
  });

  it('refuses a row’s TTFT target past the gateway’s bound, naming the row and column', () => {
    const csv = [COLUMNS, row(0, 'critical', 0, 3_600_000_001, 1000)].join('\n');
    expect(() => importTraceV2(HEADER, csv)).toThrow(TraceV2Error);
    expect(() => importTraceV2(HEADER, csv)).toThrow(/slo_target_us.*an hour/);
  });

  it('exports a spec’s class targets in the header and a client’s own TTFT target per row, and reads them back the same', () => {
    const requests = generateWorkloadRequests(SPEC);
    const goodput = goodputSloTargetsOf(SPEC)!;
    expect(goodput).toEqual({ critical: { ttft_ms: 200, itl_ms: 25, e2e_ms: 4000 } });
    const trace = exportTraceV2(requests, { header: { goodput_slo_targets: goodput } });
    expect(parseTraceV2Header(trace.header).trace_version).toBe(3);
    const lines = trace.csv.trim().split('\n');
    expect(lines[0]).toContain('deadline_us,slo_target_us,');
    const back = importTraceV2(trace.header, trace.csv).requests;
    expect(back.map((r) => r.slo)).toEqual(requests.map((r) => r.slo));
    // Only the agent's rows carry their own target; the chat rows' is the header's.
    const own = lines.slice(1).map((l) => l.split(',')[18]);
    expect(new Set(own)).toEqual(new Set(['0', '50500']));
  });

  it('writes no slo_target_us column when no row has a target of its own', () => {
    const requests = generateWorkloadRequests(validateWorkloadSpec({ ...SPEC, clients: SPEC.clients.filter((c) => c.id !== 'agent') }));
    expect(exportTraceV2(requests, { header: { goodput_slo_targets: goodputSloTargetsOf(SPEC)! } }).csv.split('\n')[0]).not.toContain('slo_target_us');
  });
});
