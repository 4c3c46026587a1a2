import type { OutcomeReason } from '@sluice/contracts';
import {
  LeanCounter,
  LeanGauge,
  LeanHistogram,
  pythonFloatString,
  type ExemplarLabels,
  type Registry,
} from '@sluice/telemetry';
import { createObjectiveMetrics, type ObjectiveMetrics, type TenantSeriesLimits } from './gateway.objective-metrics.js';

export type { ObjectiveMetrics, ObjectiveSeries, TenantSeriesLimits } from './gateway.objective-metrics.js';

export interface GatewayMetrics {
  readonly received: LeanCounter<'endpoint'>;
  /** One increment per request, at its terminal outcome: the books balance against `received`. */
  readonly terminal: LeanCounter<'outcome' | 'reason'>;
  readonly inFlight: LeanGauge;
  /** By SLO class too, so dashboards show each class's TTFT against its objective. Exemplars: the request's `trace_id`. */
  readonly ttft: LeanHistogram<'model' | 'slo_class'>;
  /** Gap between consecutive token frames as the gateway receives them, by SLO class. */
  readonly itl: LeanHistogram<'model' | 'slo_class'>;
  /** Exemplars: the request's `trace_id`. */
  readonly duration: LeanHistogram<'outcome'>;
  /** Requests whose scheduling headers came from an untrusted source and were dropped. */
  readonly headersStripped: LeanCounter;
  /**
   * Re-submissions (docs/behaviour.md §6), by why and by Dynamo's `type`: `new_request` when no
   * token had reached the client yet, `ongoing_request` when the stream continues elsewhere.
   */
  readonly migrations: LeanCounter<'reason' | 'type'>;
  /** Requests with an API key (gateway.auth), by the key's id (never the key) and terminal outcome. */
  readonly apiKeyRequests: LeanCounter<'key_id' | 'outcome'>;
  /** Tokens of those requests: the prompt's once it was taken, the completion's as sent. */
  readonly apiKeyTokens: LeanCounter<'key_id' | 'kind'>;
  /** Connections closed before a request entered: one address over its cap, headers too slow, too large or malformed. */
  readonly connectionsRefused: LeanCounter<'reason'>;
  /** Client connections open (gateway.limits.maxConnections caps them, maxConnectionsPerClient per address). */
  readonly connectionsOpen: LeanGauge;
  /** The Endpoint Picker's objective metrics (both names), bound per model, tenant, priority and streaming; tenants capped (metrics.maxTenantSeries). */
  readonly objective: ObjectiveMetrics;
  /** The HTTP server's metrics in vLLM's shape (prometheus-fastapi-instrumentator). */
  readonly http: HttpMetrics;
}

/** The gateway's metrics as a provider: the inference routes and the HTTP server's limits both count. */
export const GATEWAY_METRICS = Symbol('GatewayMetrics');

/** One model and SLO class's TTFT and ITL series, looked up once per request, not per token. */
export interface TokenSeries {
  /** With the request's sampled trace as exemplar, so a slow TTFT on a dashboard opens its trace. */
  readonly ttft: { observe(value: number, exemplar?: ExemplarLabels): void };
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

export function createGatewayMetrics(registry: Registry, limits: TenantSeriesLimits): GatewayMetrics {
  return {
    objective: createObjectiveMetrics(registry, limits),
    http: createHttpMetrics(registry),
    received: new LeanCounter({
      name: 'sluice_requests_received_total',
      help: 'Requests that entered the gateway.',
      labelNames: ['endpoint'],
      registers: [registry],
    }),
    terminal: new LeanCounter({
      name: 'sluice_requests_total',
      help: 'Requests by terminal outcome (completed, rejected, dropped, failed) and reason.',
      labelNames: ['outcome', 'reason'],
      registers: [registry],
    }),
    inFlight: new LeanGauge({ name: 'sluice_requests_in_flight', help: 'Requests without a terminal outcome yet.', registers: [registry] }),
    ttft: new LeanHistogram({
      name: 'sluice_time_to_first_token_seconds',
      help: 'Gateway-measured time from arrival to the first token, by model and SLO class.',
      labelNames: ['model', 'slo_class'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    itl: new LeanHistogram({
      name: 'sluice_inter_token_latency_seconds',
      help: 'Gateway-measured time between consecutive tokens of a request, by model and SLO class.',
      labelNames: ['model', 'slo_class'],
      buckets: ITL_BUCKETS,
      registers: [registry],
    }),
    duration: new LeanHistogram({
      name: 'sluice_request_duration_seconds',
      help: 'Gateway-measured time from arrival to the terminal outcome.',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    headersStripped: new LeanCounter({
      name: 'sluice_gateway_untrusted_headers_stripped_total',
      help: 'Requests whose tenant / objective / SLO headers came from an untrusted address and were ignored.',
      registers: [registry],
    }),
    migrations: new LeanCounter({
      name: 'sluice_migrations_total',
      help: 'Requests re-submitted because their worker or stage was lost, drained or handed them back, by reason and type (new_request / ongoing_request).',
      labelNames: ['reason', 'type'],
      registers: [registry],
    }),
    apiKeyRequests: new LeanCounter({
      name: 'sluice_gateway_api_key_requests_total',
      help: 'Requests by API key id (gateway.auth; never the key) and terminal outcome.',
      labelNames: ['key_id', 'outcome'],
      registers: [registry],
    }),
    apiKeyTokens: new LeanCounter({
      name: 'sluice_gateway_api_key_tokens_total',
      help: 'Tokens of requests by API key id: prompt (of requests handed on) and completion (sent to the client).',
      labelNames: ['key_id', 'kind'],
      registers: [registry],
    }),
    connectionsRefused: new LeanCounter({
      name: 'sluice_gateway_connections_refused_total',
      help: 'Connections the gateway closed before a request entered, by reason (too_many_connections, connection_limit, headers_timeout, headers_too_large, malformed_http, expectation_failed).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    connectionsOpen: new LeanGauge({ name: 'sluice_gateway_connections_open', help: 'Client connections open to the gateway.', registers: [registry] }),
  };
}

/**
 * The Endpoint Picker's `error_code` for a request's terminal outcome: the one table. By the HTTP
 * status the gateway answered, as llm-d's error codes name them (llm-d/llm-d-router
 * `pkg/common/error/error.go`); the EPP has no code for a deadline, and its docs map a TTL or
 * cancelled request to ServiceUnavailable, so 504 is ServiceUnavailable too. A failure the worker
 * reported is the model server's. `''`: not an error (not counted).
 */
export function eppErrorCodeOf(reason: OutcomeReason, status: number): string {
  if (reason === 'injected_server_error') return 'ModelServerError';
  if (status < 400) return '';
  switch (status) {
    case 400:
    case 408: // the body came too slowly
    case 413: // the body is over gateway.limits.maxBodyBytes
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 429:
      return 'ResourceExhausted';
    case 503:
    case 504:
      return 'ServiceUnavailable';
    default:
      return status < 500 ? 'BadRequest' : 'Internal';
  }
}

interface Observer {
  observe(value: number): void;
}
interface Incrementer {
  inc(value?: number): void;
}

/** vLLM's excluded handlers, in sluice's paths: health and metrics are not instrumented. */
const UNINSTRUMENTED = new Set(['/metrics', '/healthz', '/readyz']);
/** The gateway's routes, by path: the `handler` label is the route, anything else is `none`. */
const ROUTES = new Set(['/v1/completions', '/v1/chat/completions', '/v1/models', '/busy_threshold']);

/** The handler label of a request URL (no query, case-insensitive, one trailing slash allowed, as the routes match), or undefined when not instrumented. */
export function httpHandlerOf(url: string | undefined): string | undefined {
  if (url === undefined) return 'none';
  const query = url.indexOf('?');
  let path = (query === -1 ? url : url.slice(0, query)).toLowerCase();
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (UNINSTRUMENTED.has(path)) return undefined;
  if (ROUTES.has(path)) return path;
  // One model's page: the route's template, so the label's values stay few whatever ids are asked for.
  return path.startsWith('/v1/models/') && path.indexOf('/', '/v1/models/'.length) === -1 ? '/v1/models/{model}' : 'none';
}

export interface HttpMetrics {
  /** Records one finished request: `seconds` from its first byte to the end of its answer. */
  record(handler: string, method: string, status: number, seconds: number): void;
}

/** prometheus-fastapi-instrumentator's high-resolution latency buckets (vLLM's API server). */
const HIGHR_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 7.5, 10, 30, 60];

/**
 * The HTTP metrics vLLM's API server exposes through prometheus-fastapi-instrumentator
 * (vllm `vllm/entrypoints/serve/instrumentator/metrics.py`; the instrumentator's defaults): status
 * grouped by its first digit (`2xx`), handler the route, `none` for a path no route serves.
 * The request and response size summaries are left out: prom-client's Summary hashes its labels
 * and feeds a t-digest on every observation, too much for the gateway's hot path.
 */
function createHttpMetrics(registry: Registry): HttpMetrics {
  const total = new LeanCounter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route (handler), method and status class.',
    labelNames: ['handler', 'method', 'status'],
    registers: [registry],
  });
  const duration = new LeanHistogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request to the end of its answer, by route and method (few buckets).',
    labelNames: ['handler', 'method'],
    buckets: [0.1, 0.5, 1],
    formatLe: pythonFloatString,
    registers: [registry],
  });
  const highr = new LeanHistogram({
    name: 'http_request_duration_highr_seconds',
    help: 'Time from a request to the end of its answer, over every route (many buckets, for quantiles).',
    buckets: HIGHR_BUCKETS,
    formatLe: pythonFloatString,
    registers: [registry],
  }).labels();
  // Bound per (handler, method); the counter's status series by the status's first digit.
  const known = new Map<string, { duration: Observer; byStatus: Incrementer[] }>();
  return {
    record(handler, method, status, seconds) {
      const key = `${handler} ${method}`;
      let series = known.get(key);
      if (series === undefined) {
        series = { duration: duration.labels({ handler, method }), byStatus: [] };
        known.set(key, series);
      }
      const digit = Math.min(5, Math.max(1, Math.floor(status / 100)));
      const counter = (series.byStatus[digit] ??= total.labels({ handler, method, status: `${digit}xx` }));
      counter.inc();
      series.duration.observe(seconds);
      highr.observe(seconds);
    },
  };
}
