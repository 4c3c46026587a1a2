import { OUTCOME_REASON_NAMES, TRACE_ID_PATTERN, httpHeaders, outcomeOf, type OutcomeReason, type Stage } from '@sluice/contracts';
import type { Outcome } from '@sluice/metrics';

/** Which stage turns a request away for each reason (what the report's books group rejections by). */
const STAGE_OF_REASON: Partial<Record<OutcomeReason, Stage>> = {
  invalid_request: 'gateway',
  unservable: 'gateway',
  timeout: 'gateway',
  invalid_api_key: 'gateway',
  api_key_rate_limited: 'gateway',
  body_too_large: 'gateway',
  body_timeout: 'gateway',
  prompt_too_long: 'gateway',
  max_tokens_too_large: 'gateway',
  stream_too_long: 'gateway',
  insufficient_tokens: 'admission',
  rejected_by_policy: 'admission',
  ttft_over_budget: 'admission',
  all_workers_busy: 'admission',
  admission_unavailable: 'admission',
  flow_capacity: 'flow',
  too_many_flows: 'flow',
  pool_saturated: 'flow',
  ttl_expired: 'flow',
  client_disconnected: 'flow',
  shutdown: 'flow',
  flow_unavailable: 'flow',
  no_worker: 'router',
  router_unavailable: 'router',
  worker_unreachable: 'router',
  worker_lost: 'worker',
  injected_rate_limit: 'worker',
  injected_invalid_request: 'worker',
  injected_server_error: 'worker',
};

const KNOWN = new Set<string>(OUTCOME_REASON_NAMES);

/** How an answer that was not a completion counts in the books: outcome, reason, stage. */
export interface Ending {
  readonly outcome: Outcome;
  readonly reason: string;
  readonly stage?: Stage;
}

/** The ending named by a reason the gateway gave (header or error code); unknown reasons count as failed. */
export function endingOf(reason: string): Ending {
  if (!KNOWN.has(reason)) return { outcome: 'failed', reason };
  const known = reason as OutcomeReason;
  const stage = STAGE_OF_REASON[known];
  return { outcome: outcomeOf(known), reason, ...(stage ? { stage } : {}) };
}

/**
 * The reason in an error answer: `x-request-dropped-reason`, else the OpenAI error's `code`, else
 * Dynamo's busy body (`{message, type: service_unavailable, code: 503}`), else `http_<status>`.
 */
export function reasonOfErrorAnswer(status: number, droppedReason: string | null, body: unknown): string {
  if (droppedReason) return droppedReason;
  const record = (typeof body === 'object' && body !== null ? body : {}) as { error?: { code?: unknown }; type?: unknown; code?: unknown };
  if (typeof record.error?.code === 'string') return record.error.code;
  if (record.type === 'service_unavailable' && record.code === 503) return 'all_workers_busy';
  return `http_${status}`;
}

/**
 * The answer's trace id (`x-sluice-trace-id`) as a record field, or nothing: a value that is not a
 * W3C trace id is left out rather than turned into a link to nowhere.
 */
export function traceIdOfAnswer(headers: Pick<Headers, 'get'>): { traceId?: string } {
  const traceId = headers.get(httpHeaders.traceId);
  return traceId !== null && TRACE_ID_PATTERN.test(traceId) ? { traceId } : {};
}
