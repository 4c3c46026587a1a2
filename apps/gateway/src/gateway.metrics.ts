import { Counter, Gauge, Histogram, type Registry } from '@sluice/telemetry';

export interface GatewayMetrics {
  readonly received: Counter<'endpoint'>;
  /** One increment per request, at its terminal outcome: the books balance against `received`. */
  readonly terminal: Counter<'outcome' | 'reason'>;
  readonly inFlight: Gauge;
  /** By SLO class too, so dashboards show each class's TTFT against its objective. */
  readonly ttft: Histogram<'model' | 'slo_class'>;
  /** Gap between consecutive token frames as the gateway receives them, by SLO class. */
  readonly itl: Histogram<'model' | 'slo_class'>;
  readonly duration: Histogram<'outcome'>;
  /** Requests whose scheduling headers came from an untrusted source and were dropped. */
  readonly headersStripped: Counter;
  /**
   * Re-submissions (docs/behaviour.md §6), by why and by Dynamo's `type`: `new_request` when no
   * token had reached the client yet, `ongoing_request` when the stream continues elsewhere.
   */
  readonly migrations: Counter<'reason' | 'type'>;
  /** Requests with an API key (gateway.auth), by the key's id (never the key) and terminal outcome. */
  readonly apiKeyRequests: Counter<'key_id' | 'outcome'>;
  /** Tokens of those requests: the prompt's once it was taken, the completion's as sent. */
  readonly apiKeyTokens: Counter<'key_id' | 'kind'>;
  /** Connections closed before a request entered: one address over its cap, headers too slow, too large or malformed. */
  readonly connectionsRefused: Counter<'reason'>;
  /** Client connections open (gateway.limits.maxConnectionsPerClient caps them per address). */
  readonly connectionsOpen: Gauge;
}

/** The gateway's metrics as a provider: the inference routes and the HTTP server's limits both count. */
export const GATEWAY_METRICS = Symbol('GatewayMetrics');

/** One model and SLO class's TTFT and ITL series, looked up once per request, not per token. */
export interface TokenSeries {
  readonly ttft: { observe(value: number): void };
  readonly itl: { observe(value: number): void };
}

/**
 * The token histograms' series by (model, SLO class). A labelled `observe` hashes its labels on
 * every call, and the ITL histogram is observed once per streamed token (~25,000 a second at
 * twice the default cluster's capacity); the bound series of `labels()` skips that.
 */
export function tokenSeriesOf(metrics: GatewayMetrics): (model: string, sloClass: string) => TokenSeries {
  const known = new Map<string, TokenSeries>();
  return (model, sloClass) => {
    const key = `${model}\u0000${sloClass}`;
    let series = known.get(key);
    if (series === undefined) {
      const labels = { model, slo_class: sloClass };
      series = { ttft: metrics.ttft.labels(labels), itl: metrics.itl.labels(labels) };
      known.set(key, series);
    }
    return series;
  };
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Token gaps are milliseconds to a few hundred (vLLM's inter-token buckets, plus the sub-ms end for timeScale runs). */
const ITL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.2, 0.3, 0.4, 0.5, 1];

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
      help: 'Gateway-measured time from arrival to the first token, by model and SLO class.',
      labelNames: ['model', 'slo_class'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    itl: new Histogram({
      name: 'sluice_inter_token_latency_seconds',
      help: 'Gateway-measured time between consecutive tokens of a request, by model and SLO class.',
      labelNames: ['model', 'slo_class'],
      buckets: ITL_BUCKETS,
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
    migrations: new Counter({
      name: 'sluice_migrations_total',
      help: 'Requests re-submitted because their worker or stage was lost, drained or handed them back, by reason and type (new_request / ongoing_request).',
      labelNames: ['reason', 'type'],
      registers: [registry],
    }),
    apiKeyRequests: new Counter({
      name: 'sluice_gateway_api_key_requests_total',
      help: 'Requests by API key id (gateway.auth; never the key) and terminal outcome.',
      labelNames: ['key_id', 'outcome'],
      registers: [registry],
    }),
    apiKeyTokens: new Counter({
      name: 'sluice_gateway_api_key_tokens_total',
      help: 'Tokens of requests by API key id: prompt (of requests handed on) and completion (sent to the client).',
      labelNames: ['key_id', 'kind'],
      registers: [registry],
    }),
    connectionsRefused: new Counter({
      name: 'sluice_gateway_connections_refused_total',
      help: 'Connections the gateway closed before a request entered, by reason (too_many_connections, headers_timeout, headers_too_large, malformed_http).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    connectionsOpen: new Gauge({ name: 'sluice_gateway_connections_open', help: 'Client connections open to the gateway.', registers: [registry] }),
  };
}
