import { z } from 'zod';

/**
 * Every request that enters the gateway ends in exactly one terminal outcome. The books balance:
 * received = completed + rejected + dropped + failed (+ in flight while a run is going).
 * - rejected: refused before it was queued anywhere (never consumed capacity);
 * - dropped: evicted after it had been queued (TTL, disconnect, shutdown);
 * - failed: the system could not finish it (timeouts, lost hops, lost workers).
 */
export const OUTCOMES = ['completed', 'rejected', 'dropped', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const STAGES = ['gateway', 'admission', 'flow', 'router', 'worker'] as const;
export const StageSchema = z.enum(STAGES);
export type Stage = z.infer<typeof StageSchema>;

interface ReasonSpec {
  readonly outcome: Outcome;
  /** The HTTP status the gateway answers with (docs/architecture.md, "Outcomes and HTTP status"). */
  readonly status: number;
  /** OpenAI-style error `type`. */
  readonly errorType: string;
}

/**
 * Low-cardinality reasons: these are metric label values. The detailed message travels beside
 * them in the error frame.
 */
export const OUTCOME_REASONS = {
  ok: { outcome: 'completed', status: 200, errorType: '' },
  // Rejected: never queued.
  invalid_request: { outcome: 'rejected', status: 400, errorType: 'invalid_request_error' },
  unservable: { outcome: 'rejected', status: 400, errorType: 'invalid_request_error' },
  insufficient_tokens: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  rejected_by_policy: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  ttft_over_budget: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  all_workers_busy: { outcome: 'rejected', status: 503, errorType: 'service_unavailable' },
  flow_capacity: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  /**
   * Flow control already tracks `flowController.maxFlows` flows, each with queued requests: a new
   * tenant (or priority) is refused rather than let per-tenant state grow without bound.
   */
  too_many_flows: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  pool_saturated: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  no_worker: { outcome: 'rejected', status: 503, errorType: 'service_unavailable' },
  /** Injected by a worker's fault knobs (chaos runs), as llm-d-inference-sim does. */
  injected_rate_limit: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  injected_invalid_request: { outcome: 'rejected', status: 400, errorType: 'invalid_request_error' },
  /** The request body did not arrive whole within gateway.bodyTimeoutMs. */
  body_timeout: { outcome: 'rejected', status: 408, errorType: 'timeout' },
  /**
   * gateway.auth is on and the request has no `Authorization: Bearer` key, or one no key's hash
   * matches: OpenAI's answer (401, `invalid_request_error`, code `invalid_api_key`).
   */
  invalid_api_key: { outcome: 'rejected', status: 401, errorType: 'invalid_request_error' },
  /** The request's API key is over its `rateLimit` (gateway.auth.keys[].rateLimit). */
  api_key_rate_limited: { outcome: 'rejected', status: 429, errorType: 'rate_limit_exceeded' },
  /** The body is larger than gateway.limits.maxBodyBytes. */
  body_too_large: { outcome: 'rejected', status: 413, errorType: 'invalid_request_error' },
  /** The prompt has more tokens than gateway.limits.maxPromptTokens. */
  prompt_too_long: { outcome: 'rejected', status: 400, errorType: 'invalid_request_error' },
  /** max_tokens is above gateway.limits.maxTokens. */
  max_tokens_too_large: { outcome: 'rejected', status: 400, errorType: 'invalid_request_error' },
  // Dropped: evicted after queuing.
  ttl_expired: { outcome: 'dropped', status: 503, errorType: 'service_unavailable' },
  client_disconnected: { outcome: 'dropped', status: 503, errorType: 'service_unavailable' },
  shutdown: { outcome: 'dropped', status: 500, errorType: 'server_error' },
  /**
   * A streamed answer still open gateway.limits.maxStreamDurationMs after the request arrived: the
   * gateway ends it (an error event, or 504 if no token was sent yet) and cancels it downstream.
   */
  stream_too_long: { outcome: 'dropped', status: 504, errorType: 'timeout' },
  /**
   * Stage-local only (a stage's done event or eviction count, never a gateway outcome): the gateway
   * ended the request for another reason, or re-submitted it, and cancelled this copy.
   */
  cancelled: { outcome: 'dropped', status: 503, errorType: 'service_unavailable' },
  // Failed: the system could not finish it.
  timeout: { outcome: 'failed', status: 504, errorType: 'timeout' },
  admission_unavailable: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
  flow_unavailable: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
  router_unavailable: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
  worker_unreachable: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
  worker_lost: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
  /** The stage process holding it was lost and the migration limit was spent. */
  stage_lost: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
  internal: { outcome: 'failed', status: 500, errorType: 'server_error' },
  injected_server_error: { outcome: 'failed', status: 503, errorType: 'service_unavailable' },
} as const satisfies Record<string, ReasonSpec>;

export type OutcomeReason = keyof typeof OUTCOME_REASONS;
export const OUTCOME_REASON_NAMES = Object.keys(OUTCOME_REASONS) as [OutcomeReason, ...OutcomeReason[]];
export const OutcomeReasonSchema = z.enum(OUTCOME_REASON_NAMES);

export function outcomeOf(reason: OutcomeReason): Outcome {
  return OUTCOME_REASONS[reason].outcome;
}

export function httpStatusOf(reason: OutcomeReason): number {
  return OUTCOME_REASONS[reason].status;
}

export function errorTypeOf(reason: OutcomeReason): string {
  return OUTCOME_REASONS[reason].errorType;
}

/** Dynamo's exact answer when every worker is busy (docs/behaviour.md §2, busy-threshold). */
export const ALL_WORKERS_BUSY_BODY = {
  message: 'Service temporarily unavailable: All workers are busy, please retry later',
  type: 'service_unavailable',
  code: 503,
} as const;
