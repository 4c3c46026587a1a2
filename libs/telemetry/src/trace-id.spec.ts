import { describe, expect, it } from 'vitest';
import { INVALID_SPAN_CONTEXT, TraceFlags, trace } from '@opentelemetry/api';
import { sampledTraceIdOf } from './trace-id.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanWith = (traceFlags: number) => trace.wrapSpanContext({ traceId: TRACE_ID, spanId: '00f067aa0ba902b7', traceFlags });

describe('sampledTraceIdOf', () => {
  it('gives the trace id of a sampled span', () => {
    expect(sampledTraceIdOf(spanWith(TraceFlags.SAMPLED))).toBe(TRACE_ID);
  });

  it('gives nothing for an unsampled span, exported nowhere', () => {
    expect(sampledTraceIdOf(spanWith(TraceFlags.NONE))).toBeUndefined();
  });

  it('gives nothing for the no-op span the API starts when no SDK runs (tracing off)', () => {
    expect(sampledTraceIdOf(trace.wrapSpanContext(INVALID_SPAN_CONTEXT))).toBeUndefined();
    expect(sampledTraceIdOf(trace.getTracer('t').startSpan('s'))).toBeUndefined();
  });
});
