/** NATS message headers. Trace context uses the W3C names so any OTel propagator reads it. */
export const busHeaders = {
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  requestId: 'sluice-request-id',
  attempt: 'sluice-attempt',
  /**
   * On a handoff: when its sender stops waiting for the ack (its wall clock, epoch ms). A receiver
   * that gets the copy too late to ack in time does not take it (docs/behaviour.md §6, "Handoff failures").
   */
  ackBy: 'sluice-ack-by',
} as const;

/** HTTP headers the gateway reads or writes (names from the Gateway API Inference Extension). */
export const httpHeaders = {
  fairnessId: 'x-gateway-inference-fairness-id',
  objective: 'x-gateway-inference-objective',
  sloTtftMs: 'x-slo-ttft-ms',
  sloClass: 'x-sluice-slo-class',
  requestId: 'x-request-id',
  droppedReason: 'x-request-dropped-reason',
  /** Request header: send `sluice` (stage timings, instance, priority) at the end of the answer. */
  reportTimings: 'x-sluice-report-timings',
  /**
   * Request header: when the client sent the request, `<ms>@<clock>` on its host's monotonic clock
   * (libs/bus hop-clock: `sendStamp()`). A gateway on the same host times the client's own send
   * and its wait for the gateway's event loop into `timings.clientSendMs`; on another host (another
   * clock id) it is ignored.
   */
  sentAt: 'x-sluice-sent-at',
  /**
   * Response header: the W3C trace id (32 lowercase hex digits) of the request's trace, set when the
   * gateway records spans (tracing on and the request sampled). A client keeps it to open the
   * request's trace in Jaeger (`{jaegerUrl}/trace/{traceId}`); absent when nothing was recorded.
   */
  traceId: 'x-sluice-trace-id',
  /** `Bearer <key>`, read when gateway.auth is on (docs/security.md). */
  authorization: 'authorization',
} as const;

/**
 * What a tenant (fairness id) or an objective name may be, from a header or an API key's config:
 * it travels on the bus and becomes a metric label value (the flow controller's `fairness_id`), so
 * it is short and made only of what a subject token carries as it is. Anything else is a 400 at
 * the gateway rather than a surprise downstream.
 */
export const SCHEDULING_ID_MAX_LENGTH = 64;
export const SCHEDULING_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const SCHEDULING_ID_RULE = `1 to ${SCHEDULING_ID_MAX_LENGTH} letters, digits, "_" or "-"`;

/**
 * The largest TTFT objective a client may send (`x-slo-ttft-ms`): an hour. A finite bound, so the
 * value stays finite on the wire in µs and in every deadline computed from it.
 */
export const SLO_TTFT_MS_MAX = 3_600_000;

/** A W3C trace id as `x-sluice-trace-id` carries it: 32 lowercase hex digits, not all zero (W3C Trace Context §3.2.2.3). */
export const TRACE_ID_PATTERN = /^(?!0{32})[0-9a-f]{32}$/;
