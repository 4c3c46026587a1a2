/** NATS message headers. Trace context uses the W3C names so any OTel propagator reads it. */
export const busHeaders = {
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  requestId: 'sluice-request-id',
  attempt: 'sluice-attempt',
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
} as const;
