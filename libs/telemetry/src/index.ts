export * from './tracing.js';
export * from './metrics.js';
export { SpanKind, SpanStatusCode, context, trace, propagation } from '@opentelemetry/api';
export type { Span, Tracer, Context, Attributes } from '@opentelemetry/api';
export { Registry, Counter, Gauge, Histogram, Summary } from 'prom-client';
export * from './python-buckets.js';
export * from './bounded-label.js';
export * from './endpoint-picker.js';
export * from './lean-metrics.js';
