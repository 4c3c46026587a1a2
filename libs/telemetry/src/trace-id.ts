import { isSpanContextValid, TraceFlags, type Span } from '@opentelemetry/api';

/**
 * The span's W3C trace id when the span is recorded and sampled, else undefined: with no SDK started
 * (tracing off) a span is the API's no-op with the all-zero id, and an unsampled one is exported
 * nowhere, so a link to either would open nothing.
 */
export function sampledTraceIdOf(span: Span): string | undefined {
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return undefined;
  return (spanContext.traceFlags & TraceFlags.SAMPLED) !== 0 ? spanContext.traceId : undefined;
}

/**
 * A histogram exemplar linking an observation to its request's trace (`trace_id`, the label
 * Grafana's `exemplarTraceIdDestinations` opens in Jaeger), or undefined when there is no trace to
 * open (tracing off, or the span not sampled).
 */
export function traceExemplarOf(span: Span): { readonly trace_id: string } | undefined {
  const traceId = sampledTraceIdOf(span);
  return traceId === undefined ? undefined : { trace_id: traceId };
}
