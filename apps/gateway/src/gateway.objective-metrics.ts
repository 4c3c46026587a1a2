import {
  EPP_ITL_BUCKETS,
  EPP_LATENCY_BUCKETS,
  EPP_NTPOT_BUCKETS,
  EPP_OUTPUT_TOKEN_BUCKETS,
  EPP_REQUEST_SIZE_BUCKETS,
  EPP_RESPONSE_SIZE_BUCKETS,
  EPP_TOKEN_BUCKETS,
  EPP_TTFT_BUCKETS,
  Gauge,
  LeanCounter,
  LeanGauge,
  LeanHistogram,
  SeriesBudget,
  deprecatedEppHelp,
  eppHelp,
  type Registry,
} from '@sluice/telemetry';

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
  /** The request is held from `inc` to `dec`: its tenant's series stay on the page meanwhile. */
  readonly running: { inc(): void; dec(): void };
  error(code: string): Incrementer;
}

export interface ObjectiveMetrics {
  /**
   * The series of a request of `model` from `fairnessId` at `priority`: one map lookup. A tenant
   * (fairness id × priority) past `metrics.maxTenantSeries` reads `fairness_id="other"`.
   */
  seriesOf(model: string, fairnessId: string, priority: number | undefined, streaming: boolean): ObjectiveSeries;
}

/** How many tenants keep series of their own, and for how long one idle keeps them (`metrics.*`). */
export interface TenantSeriesLimits {
  readonly maxTenantSeries: number;
  readonly tenantSeriesIdleMs: number;
  /** Monotonic ms; injected so idling out is testable without sleeping. */
  readonly now: () => number;
}

/** The `fairness_id` that every tenant past the budget shares, as llm-d names its overflow. */
export const OVERFLOW_FAIRNESS_ID = 'other';

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
 * them. sluice rewrites no model, so `target_model_name` is the model.
 *
 * A tenant's series cost ~20 kB of page per model (a dozen histograms), so what is capped is the
 * number of tenants with series of their own, not the values of one label: past
 * `maxTenantSeries` a new tenant is written as `fairness_id="other"` (llm-d's overflow value), and a
 * tenant with nothing in flight for `tenantSeriesIdleMs` is taken off the page, making room. The
 * deprecated names carry no tenant and are never removed. Priorities come from the SLO classes and
 * `inferenceObjectives`, so they are bounded by the config.
 */
export function createObjectiveMetrics(registry: Registry, limits: TenantSeriesLimits): ObjectiveMetrics {
  const LLMD = ['model_name', 'target_model_name', 'fairness_id', 'priority'] as const;
  const GAIE = ['model_name', 'target_model_name'] as const;
  type Llmd = Record<(typeof LLMD)[number], string>;

  /** A tenant's series, so that its removal finds them all. */
  const bound = new Map<string, { readonly seriesKeys: string[]; readonly removers: (() => void)[] }>();
  const known = new Map<string, ObjectiveSeries>();
  const budget = new SeriesBudget(limits.maxTenantSeries, {
    idleMs: limits.tenantSeriesIdleMs,
    now: limits.now,
    onRelease(tenant) {
      const entry = bound.get(tenant);
      if (entry === undefined) return;
      bound.delete(tenant);
      for (const key of entry.seriesKeys) known.delete(key);
      for (const remove of entry.removers) remove();
    },
  });
  // Registered before the families it sweeps, so a scrape writes them after idle tenants are gone.
  const tenants: Gauge = new Gauge({
    name: 'sluice_metrics_tenant_series',
    help: 'Tenants (fairness id × priority) with series of their own on this page (at most metrics.maxTenantSeries; the rest are fairness_id="other").',
    registers: [registry],
    collect() {
      budget.sweep();
      tenants.set(budget.size);
    },
  });

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

  /** The series of a tenant-labelled family, bound now and removed with the tenant (the overflow's never are). */
  const tenantSeries = <L extends string, C>(tenant: string | undefined, family: { labels(v: Record<L, string>): C; remove(v: Record<L, string>): void }, labels: Record<L, string>): C => {
    if (tenant !== undefined) bound.get(tenant)?.removers.push(() => family.remove(labels));
    return family.labels(labels);
  };

  const makeSeries = (tenant: string | undefined, model: string, llmd: Llmd, streaming: boolean): ObjectiveSeries => {
    const gaie = { model_name: model, target_model_name: model };
    const bind = (h: readonly [LeanHistogram<(typeof LLMD)[number]>, LeanHistogram<(typeof GAIE)[number]>]) => onFirstUse(() => pair(tenantSeries(tenant, h[0], llmd), h[1].labels(gaie)));
    const errorSeries = new Map<string, Incrementer>();
    let runningSeries: readonly [{ inc(): void; dec(): void }, { inc(): void; dec(): void }] | undefined;
    const runningNow = () => (runningSeries ??= [tenantSeries(tenant, running[0], llmd), running[1].labels({ model_name: model })]);
    return {
      total: incPair(tenantSeries(tenant, requests[0], llmd), requests[1].labels({ ...gaie, priority: llmd.priority })),
      requestBytes: bind(requestBytes),
      responseBytes: bind(responseBytes),
      inputTokens: bind(inputTokens),
      outputTokens: bind(outputTokens),
      duration: bind(duration),
      ntpot: bind(ntpot),
      ttft: onFirstUse(() => tenantSeries(tenant, ttft, { ...llmd, streaming: String(streaming) })),
      itl: onFirstUse(() => tenantSeries(tenant, itl, llmd)),
      running: {
        inc() {
          if (tenant !== undefined) budget.hold(tenant);
          for (const g of runningNow()) g.inc();
        },
        dec() {
          for (const g of runningNow()) g.dec();
          if (tenant !== undefined) budget.unhold(tenant);
        },
      },
      error(code) {
        let counter = errorSeries.get(code);
        if (counter === undefined) {
          counter = incPair(tenantSeries(tenant, errors[0], { ...llmd, error_code: code }), errors[1].labels({ ...gaie, error_code: code }));
          errorSeries.set(code, counter);
        }
        return counter;
      },
    };
  };

  return {
    seriesOf(model, fairnessId, priority, streaming) {
      const priorityLabel = priority === undefined ? '' : String(priority);
      const tenantKey = `${fairnessId}\u0000${priorityLabel}`;
      // A tenant that calls itself `other` is the overflow: its series are shared and never removed.
      const tenant = fairnessId !== OVERFLOW_FAIRNESS_ID && budget.admit(tenantKey) ? tenantKey : undefined;
      const fairnessLabel = tenant === undefined ? OVERFLOW_FAIRNESS_ID : fairnessId;
      const key = `${model}\u0000${fairnessLabel}\u0000${priorityLabel}\u0000${streaming}`;
      let series = known.get(key);
      if (series === undefined) {
        if (tenant !== undefined && !bound.has(tenant)) bound.set(tenant, { seriesKeys: [], removers: [] });
        series = makeSeries(tenant, model, { model_name: model, target_model_name: model, fairness_id: fairnessLabel, priority: priorityLabel }, streaming);
        known.set(key, series);
        if (tenant !== undefined) bound.get(tenant)!.seriesKeys.push(key);
      }
      return series;
    },
  };
}
