import { describe, expect, it } from 'vitest';
import { ALL_WORKERS_BUSY_BODY } from '@sluice/contracts';
import { endingOf, reasonOfErrorAnswer, traceIdOfAnswer } from './outcome-of-answer.js';

describe('how an error answer counts in the books', () => {
  it('takes the reason from x-request-dropped-reason, then the error code, then Dynamo’s busy body', () => {
    expect(reasonOfErrorAnswer(429, 'flow_capacity', { error: { code: 'something_else' } })).toBe('flow_capacity');
    expect(reasonOfErrorAnswer(504, null, { error: { code: 'timeout', message: 'x' } })).toBe('timeout');
    expect(reasonOfErrorAnswer(503, null, ALL_WORKERS_BUSY_BODY)).toBe('all_workers_busy');
    expect(reasonOfErrorAnswer(502, null, 'not json')).toBe('http_502');
  });

  it('gives each known reason its outcome and the stage that decided it; unknown reasons fail', () => {
    expect(endingOf('insufficient_tokens')).toEqual({ outcome: 'rejected', reason: 'insufficient_tokens', stage: 'admission' });
    expect(endingOf('flow_capacity')).toEqual({ outcome: 'rejected', reason: 'flow_capacity', stage: 'flow' });
    expect(endingOf('ttl_expired')).toEqual({ outcome: 'dropped', reason: 'ttl_expired', stage: 'flow' });
    expect(endingOf('worker_lost')).toEqual({ outcome: 'failed', reason: 'worker_lost', stage: 'worker' });
    expect(endingOf('http_502')).toEqual({ outcome: 'failed', reason: 'http_502' });
  });
});

describe('the trace id a record keeps', () => {
  const answer = (headers: Record<string, string>) => new Headers(headers);

  it('keeps the gateway’s x-sluice-trace-id when it is a W3C trace id', () => {
    expect(traceIdOfAnswer(answer({ 'x-sluice-trace-id': '4bf92f3577b34da6a3ce929d0e0e4736' }))).toEqual({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
  });

  it('keeps nothing when the header is absent, all zeros (no span recorded) or not 32 lowercase hex digits', () => {
    expect(traceIdOfAnswer(answer({}))).toEqual({});
    expect(traceIdOfAnswer(answer({ 'x-sluice-trace-id': '0'.repeat(32) }))).toEqual({});
    expect(traceIdOfAnswer(answer({ 'x-sluice-trace-id': '4BF92F3577B34DA6A3CE929D0E0E4736' }))).toEqual({});
    expect(traceIdOfAnswer(answer({ 'x-sluice-trace-id': '4bf92f35' }))).toEqual({});
  });
});
