import type { OutcomeReason } from '@sluice/contracts';
import {
  BoundedLabel,
  EPP_ITL_BUCKETS,
  EPP_LATENCY_BUCKETS,
  EPP_NTPOT_BUCKETS,
  EPP_OUTPUT_TOKEN_BUCKETS,
  EPP_REQUEST_SIZE_BUCKETS,
  EPP_RESPONSE_SIZE_BUCKETS,
  EPP_TOKEN_BUCKETS,
  EPP_TTFT_BUCKETS,
  LeanCounter,
  LeanGauge,
  LeanHistogram,
  pythonFloatString,
  deprecatedEppHelp,
  eppHelp,
  type Registry,
} from '@sluice/telemetry';

export interface GatewayMetrics {
  readonly received: LeanCounter<'endpoint'>;
  /** One increment per request, at its terminal outcome: the books balance against `received`. */
  readonly terminal: LeanCounter<'outcome' | 'reason'>;
  readonly inFlight: LeanGauge;
  /** By SLO class too, so dashboards show each class's TTFT against its objective. */
  readonly ttft: LeanHistogram<'model' | 'slo_class'>;
  /** Gap between consecutive token frames as the gateway receives them, by SLO class. */
  readonly itl: LeanHistogram<'model' | 'slo_class'>;
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
  /** The Endpoint Picker's objective metrics (both names), bound per model, tenant, priority and streaming. */
  readonly objective: ObjectiveMetrics;
  /** The HTTP server's metrics in vLLM's shape (prometheus-fastapi-instrumentator). */
  readonly http: HttpMetrics;
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
    objective: createObjectiveMetrics(registry),
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

/** One request's objective series: every metric of both names, bound once when the request is taken. */
export interface ObjectiveSeries {
  readonly total: Incrementer;
  readonly requestBytes: Observer;
  readonly responseBytes: Observer;
  readonly inputTokens: Observer;
  readonly outputTokens: Observer;
  readonly duration: Observer;
  readonly ntpot: Observer;
  /** Time to the first token (for a non-streamed answer, its whole duration, as llm-d records it). */
  readonly ttft: Observer;
  /** Gaps between the chunks of a streamed answer. */
  readonly itl: Observer;
  readonly running: { inc(): void; dec(): void };
  error(code: string): Incrementer;
}

export interface ObjectiveMetrics {
  /** The series of a request of `model` from `fairnessId` at `priority`: one map lookup; a new tenant past 1000 reads `other`. */
  seriesOf(model: string, fairnessId: string, priority: number | undefined, streaming: boolean): ObjectiveSeries;
}

const pair = (a: Observer, b: Observer): Observer => ({
  observe(value) {
    a.observe(value);
    b.observe(value);
  },
});
const incPair = (a: Incrementer, b: Incrementer): Incrementer => ({
  inc(value = 1) {
    a.inc(value);
    b.inc(value);
  },
});
/**
 * An observer whose series is made at its first observation. Lean series exist from `labels()`,
 * and most of a request's objective series go unused by some requests (one refused at the door
 * fills only the count and the error, a non-streamed one no chunk gaps): bound eagerly, each
 * would put zero series for those on the page.
 */
const onFirstUse = (make: () => Observer): Observer => {
  let made: Observer | undefined;
  return {
    observe(value) {
      (made ??= make()).observe(value);
    },
  };
};

/**
 * The Endpoint Picker's request metrics: the current `llm_d_epp_request_*` names (labels model,
 * target model, fairness id, priority) and the deprecated `inference_objective_*` ones (the model
 * pair), as llm-d/llm-d-router `pkg/epp/metrics/llm_d_router_metrics.go` and `metrics.go` define
 * them. sluice rewrites no model, so `target_model_name` is the model. `fairness_id` is capped at
 * 1000 distinct values (then `other`), as llm-d caps it, so tenant ids a client invents cannot
 * grow the page.
 */
function createObjectiveMetrics(registry: Registry): ObjectiveMetrics {
  const LLMD = ['model_name', 'target_model_name', 'fairness_id', 'priority'] as const;
  const GAIE = ['model_name', 'target_model_name'] as const;
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) => new LeanHistogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  const twins = (current: string, legacy: string, help: string, buckets: number[], legacyBuckets = buckets) =>
    [histogram(current, eppHelp(help), LLMD, buckets), histogram(legacy, deprecatedEppHelp(current, help), GAIE, legacyBuckets)] as const;

  const requests = [
    new LeanCounter({ name: 'llm_d_epp_request_total', help: eppHelp('Requests the gateway took, at their terminal outcome.'), labelNames: LLMD, registers: [registry] }),
    // llm-d's copy of the GAIE counter adds priority.
    new LeanCounter({
      name: 'inference_objective_request_total',
      help: deprecatedEppHelp('llm_d_epp_request_total', 'Requests the gateway took, at their terminal outcome.'),
      labelNames: ['model_name', 'target_model_name', 'priority'],
      registers: [registry],
    }),
  ] as const;
  const errorHelp = 'Requests that ended in an error, by the Endpoint Picker’s error code.';
  const errors = [
    new LeanCounter({ name: 'llm_d_epp_request_error_total', help: eppHelp(errorHelp), labelNames: [...LLMD, 'error_code'], registers: [registry] }),
    new LeanCounter({ name: 'inference_objective_request_error_total', help: deprecatedEppHelp('llm_d_epp_request_error_total', errorHelp), labelNames: [...GAIE, 'error_code'], registers: [registry] }),
  ] as const;
  const duration = twins('llm_d_epp_request_duration_seconds', 'inference_objective_request_duration_seconds', 'Arrival to the last byte of a completed answer, in seconds.', EPP_LATENCY_BUCKETS);
  const requestBytes = twins('llm_d_epp_request_size_bytes', 'inference_objective_request_sizes', 'Request body size in bytes.', EPP_REQUEST_SIZE_BUCKETS);
  const responseBytes = twins('llm_d_epp_response_size_bytes', 'inference_objective_response_sizes', 'Response body bytes sent to the client for a completed answer.', EPP_RESPONSE_SIZE_BUCKETS);
  const inputTokens = twins('llm_d_epp_request_input_tokens', 'inference_objective_input_tokens', 'Prompt tokens per request.', EPP_TOKEN_BUCKETS);
  const outputTokens = twins('llm_d_epp_request_output_tokens', 'inference_objective_output_tokens', 'Output tokens per completed request.', EPP_OUTPUT_TOKEN_BUCKETS);
  const ntpot = twins(
    'llm_d_epp_request_ntpot_seconds',
    'inference_objective_normalized_time_per_output_token_seconds',
    'Normalized time per output token: a completed request’s duration over its output tokens, in seconds.',
    EPP_NTPOT_BUCKETS,
  );
  const runningHelp = 'Requests the gateway holds now (taken, no terminal outcome yet).';
  const running = [
    new LeanGauge({ name: 'llm_d_epp_request_running', help: eppHelp(runningHelp), labelNames: LLMD, registers: [registry] }),
    new LeanGauge({ name: 'inference_objective_running_requests', help: deprecatedEppHelp('llm_d_epp_request_running', runningHelp), labelNames: ['model_name'], registers: [registry] }),
  ] as const;
  const ttft = histogram('llm_d_epp_request_ttft_seconds', eppHelp('Time to the first token; for a non-streamed answer, its whole duration.'), [...LLMD, 'streaming'], EPP_TTFT_BUCKETS);
  const itl = histogram('llm_d_epp_request_streaming_itl_seconds', eppHelp('Time between consecutive chunks of a streamed answer.'), LLMD, EPP_ITL_BUCKETS);

  const fairness = new BoundedLabel(1000, 'other');
  const known = new Map<string, ObjectiveSeries>();
  return {
    seriesOf(model, fairnessId, priority, streaming) {
      const fairnessLabel = fairness.of(fairnessId);
      const key = `${model}\u0000${fairnessLabel}\u0000${priority ?? ''}\u0000${streaming}`;
      let series = known.get(key);
      if (series === undefined) {
        const llmd = { model_name: model, target_model_name: model, fairness_id: fairnessLabel, priority: priority === undefined ? '' : String(priority) };
        const gaie = { model_name: model, target_model_name: model };
        const bind = (h: readonly [LeanHistogram<(typeof LLMD)[number]>, LeanHistogram<(typeof GAIE)[number]>]) => onFirstUse(() => pair(h[0].labels(llmd), h[1].labels(gaie)));
        const errorSeries = new Map<string, Incrementer>();
        let runningSeries: readonly [{ inc(): void; dec(): void }, { inc(): void; dec(): void }] | undefined;
        const runningNow = () => (runningSeries ??= [running[0].labels(llmd), running[1].labels({ model_name: model })]);
        series = {
          total: incPair(requests[0].labels(llmd), requests[1].labels({ ...gaie, priority: llmd.priority })),
          requestBytes: bind(requestBytes),
          responseBytes: bind(responseBytes),
          inputTokens: bind(inputTokens),
          outputTokens: bind(outputTokens),
          duration: bind(duration),
          ntpot: bind(ntpot),
          ttft: onFirstUse(() => ttft.labels({ ...llmd, streaming: String(streaming) })),
          itl: onFirstUse(() => itl.labels(llmd)),
          running: {
            inc() {
              for (const g of runningNow()) g.inc();
            },
            dec() {
              for (const g of runningNow()) g.dec();
            },
          },
          error(code) {
            let counter = errorSeries.get(code);
            if (counter === undefined) {
              counter = incPair(errors[0].labels({ ...llmd, error_code: code }), errors[1].labels({ ...gaie, error_code: code }));
              errorSeries.set(code, counter);
            }
            return counter;
          },
        };
        known.set(key, series);
      }
      return series;
    },
  };
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
  return ROUTES.has(path) ? path : 'none';
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
