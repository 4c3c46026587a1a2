import { Counter, Gauge, Histogram, type Registry } from '@sluice/telemetry';

export interface GatewayMetrics {
  readonly received: Counter<'endpoint'>;
  /** One increment per request, at its terminal outcome: the books balance against `received`. */
  readonly terminal: Counter<'outcome' | 'reason'>;
  readonly inFlight: Gauge;
  readonly ttft: Histogram<'model'>;
  readonly duration: Histogram<'outcome'>;
  /** Requests whose scheduling headers came from an untrusted source and were dropped. */
  readonly headersStripped: Counter;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  return {
    received: new Counter({
      name: 'sluice_requests_received_total',
      help: 'Requests that entered the gateway.',
      labelNames: ['endpoint'],
      registers: [registry],
    }),
    terminal: new Counter({
      name: 'sluice_requests_total',
      help: 'Requests by terminal outcome (completed, rejected, dropped, failed) and reason.',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    inFlight: new Gauge({ name: 'sluice_requests_in_flight', help: 'Requests without a terminal outcome yet.', registers: [registry] }),
    ttft: new Histogram({
      name: 'sluice_time_to_first_token_seconds',
      help: 'Gateway-measured time from arrival to the first token.',
      labelNames: ['model'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'sluice_request_duration_seconds',
      help: 'Gateway-measured time from arrival to the terminal outcome.',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    headersStripped: new Counter({
      name: 'sluice_gateway_untrusted_headers_stripped_total',
      help: 'Requests whose tenant / objective / SLO headers came from an untrusted address and were ignored.',
      registers: [registry],
    }),
  };
}
