import { describe, expect, it } from 'vitest';
import { generateWorkloadRequests, type WorkloadRequest } from './generate.js';
import { validateWorkloadSpec } from './spec.js';
import { exportTraceV2, importTraceV2, tracePrefixesFromSpec } from './trace-v2.js';
import { traceV2ObservedColumns, type TraceV2Observation } from './trace-v2-observed.js';

const SPEC = validateWorkloadSpec({
  seed: 3,
  aggregate_rate: 20,
  num_requests: 30,
  clients: [
    {
      id: 'chat',
      tenant_id: 'acme',
      slo_class: 'critical',
      rate_fraction: 2,
      arrival: { process: 'poisson' },
      input_distribution: { type: 'constant', params: { value: 10 } },
      output_distribution: { type: 'constant', params: { value: 4 } },
      prefix_group: 'system',
      prefix_length: 16,
    },
    {
      id: 'batch',
      tenant_id: 'globex',
      slo_class: 'sheddable',
      rate_fraction: 1,
      arrival: { process: 'gamma', cv: 2 },
      input_distribution: { type: 'constant', params: { value: 32 } },
      output_distribution: { type: 'constant', params: { value: 2 } },
    },
  ],
});

/** Everything import must give back, token ids aside (they are regenerated from the seed). */
const shape = (r: WorkloadRequest) => ({ index: r.index, clientId: r.clientId, fairnessId: r.fairnessId, sloClass: r.sloClass, arrivalMs: r.arrivalMs, inputs: r.inputTokens.length, maxTokens: r.maxTokens });

describe('traceV2ObservedColumns', () => {
  it('writes a completed stream as ok/length with its first and last token times in µs', () => {
    expect(traceV2ObservedColumns({ outcome: 'completed', firstTokenMs: 12.3456, endMs: 20, tokenTimesMs: [12.3456, 15, 19.0004], outputTokens: 3 })).toEqual({
      first_chunk_time_us: '12346',
      last_chunk_time_us: '19000',
      num_chunks: '3',
      status: 'ok',
      error_message: '',
      finish_reason: 'length',
    });
  });

  it("writes BLIS's last chunk time where the run gives it (BLIS parity mode), not the wall clock's", () => {
    // b of libs/twin blis-mode.spec.ts: first token 23.731 ms, wall-clock end 555.993 ms, BLIS's 282.226 ms.
    const preempted = { outcome: 'completed', firstTokenMs: 23.731, endMs: 555.993, tokenTimesMs: [23.731, 555.993], outputTokens: 2 };
    expect(traceV2ObservedColumns({ ...preempted, blisLastChunkMs: 282.226 })).toMatchObject({ first_chunk_time_us: '23731', last_chunk_time_us: '282226' });
    expect(traceV2ObservedColumns(preempted).last_chunk_time_us).toBe('555993');
  });

  it('writes a rejection as an error naming outcome and reason, a timeout as timeout, a broken stream as aborted', () => {
    expect(traceV2ObservedColumns({ outcome: 'rejected', reason: 'flow_capacity', endMs: 3, outputTokens: 0 })).toMatchObject({ status: 'error', error_message: 'rejected: flow_capacity', first_chunk_time_us: '0', num_chunks: '0', finish_reason: '' });
    expect(traceV2ObservedColumns({ outcome: 'failed', reason: 'timeout', endMs: 3000, outputTokens: 0 })).toMatchObject({ status: 'timeout', error_message: 'failed: timeout' });
    // No token list (the twin's mid-stream failure may carry only the first token): the stream's end is the last chunk.
    expect(traceV2ObservedColumns({ outcome: 'failed', reason: 'stream_broken', firstTokenMs: 5, endMs: 9, outputTokens: 2 })).toMatchObject({ status: 'error', last_chunk_time_us: '9000', finish_reason: 'abort' });
  });

  it('leaves a request still in flight as one that has not run', () => {
    expect(traceV2ObservedColumns({ outcome: 'in_flight', outputTokens: 0 })).toEqual({ first_chunk_time_us: '0', last_chunk_time_us: '0', num_chunks: '0', status: '', error_message: '', finish_reason: '' });
  });
});

describe('exportTraceV2 with observations', () => {
  const requests: WorkloadRequest[] = [
    { index: 0, clientId: 'chat', fairnessId: 'acme', sloClass: 'critical', arrivalMs: 1.5, inputTokens: Uint32Array.of(1, 2, 3, 4, 5), maxTokens: 2 },
    { index: 1, clientId: 'batch', fairnessId: 'globex', sloClass: 'sheddable', arrivalMs: 2.25, inputTokens: Uint32Array.of(9, 9), maxTokens: 4 },
    { index: 2, clientId: 'chat', fairnessId: 'acme', sloClass: 'critical', arrivalMs: 4, inputTokens: Uint32Array.of(1, 2, 3, 7), maxTokens: 2 },
  ];
  const observed: (TraceV2Observation | undefined)[] = [
    { outcome: 'completed', firstTokenMs: 10, endMs: 12.5, tokenTimesMs: [10, 12.25], outputTokens: 2 },
    { outcome: 'rejected', reason: 'flow_capacity', endMs: 3, outputTokens: 0 },
    undefined,
  ];

  it('fills the observed columns of each row, send time = arrival time (exact rows)', () => {
    const { header, csv } = exportTraceV2(requests, { header: { mode: 'replayed', workload_seed: 1 }, requestPrefixes: [{ group: 'sys', length: 3 }, undefined, { group: 'sys', length: 3 }], observed });
    expect(header).toBe('trace_version: 2\ntime_unit: microseconds\nmode: replayed\nwarm_up_requests: 0\nworkload_seed: 1\n');
    expect(csv.split('\n').slice(1)).toEqual([
      '0,chat,acme,critical,,0,sys,3,false,2,2,0,0,0,0,0,,0,0,1500,1500,10000,12250,2,ok,,length',
      '1,batch,globex,sheddable,,0,,0,false,2,4,0,0,0,0,0,,0,0,2250,2250,0,0,0,error,rejected: flow_capacity,',
      '2,chat,acme,critical,,0,sys,3,false,1,2,0,0,0,0,0,,0,0,4000,4000,0,0,0,,,',
      '',
    ]);
  });
});

describe('round trip with observed columns', () => {
  it('export → import gives back the requests and their prefix structure, and re-export gives the same text', () => {
    const generated = generateWorkloadRequests(SPEC);
    const observed = generated.map((r): TraceV2Observation => ({ outcome: 'completed', firstTokenMs: r.arrivalMs + 7, endMs: r.arrivalMs + 9, outputTokens: r.maxTokens }));
    const first = exportTraceV2(generated, { header: { workload_seed: 3 }, prefixes: tracePrefixesFromSpec(SPEC), observed });
    const imported = importTraceV2(first.header, first.csv);
    // arrivalMs to the µs: the generator's are not whole µs.
    expect(imported.requests.map(shape)).toEqual(generated.map((r) => ({ ...shape(r), arrivalMs: Math.round(r.arrivalMs * 1000) / 1000 })));
    expect(imported.requestPrefixes).toEqual(generated.map((r) => (r.clientId === 'chat' ? { group: 'system', length: 16 } : undefined)));
    // Requests of the group share exactly the prefix's tokens.
    const chats = imported.requests.filter((r) => r.clientId === 'chat');
    for (const r of chats) expect(Array.from(r.inputTokens.slice(0, 16))).toEqual(Array.from(chats[0]!.inputTokens.slice(0, 16)));
    expect(imported.records.every((r) => r.status === 'ok' && r.firstChunkTimeUs > 0 && r.numChunks > 0)).toBe(true);

    // Replayed: the imported requests, by their own prefixes, observed the same way.
    const again = exportTraceV2(imported.requests, { header: { workload_seed: 3 }, requestPrefixes: imported.requestPrefixes, observed });
    expect(again).toEqual(first);
    expect(importTraceV2(again.header, again.csv).requests).toEqual(imported.requests);
  });
});
