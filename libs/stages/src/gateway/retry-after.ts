import { httpStatusOf, type OutcomeReason } from '@sluice/contracts';

/**
 * When a stage knows no better: one second. OpenAI's SDKs retry a 429 or 503 after
 * `retry-after` seconds when the header is there, and otherwise on their own schedule (two
 * retries by default, a backoff from 0.5 s), so a server that can say when to come back should.
 */
export const DEFAULT_RETRY_AFTER_S = 1;

/** Statuses that tell the client to come back later: too many requests, unavailable. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * The `retry-after` of an answer ending with `reason`, in whole seconds (RFC 9110 §10.2.3: a
 * delay in seconds, a non-negative integer; at least 1 here, since 0 invites an immediate retry
 * into the same refusal), or undefined for an answer that is not a 429 or 503. `hintMs` is the
 * deciding rule's own estimate of when the request would pass (a token bucket's refill time);
 * without one, DEFAULT_RETRY_AFTER_S.
 */
export function retryAfterSecondsOf(reason: OutcomeReason, hintMs?: number): number | undefined {
  if (!RETRYABLE_STATUSES.has(httpStatusOf(reason))) return undefined;
  if (hintMs === undefined || !Number.isFinite(hintMs)) return DEFAULT_RETRY_AFTER_S;
  return Math.max(1, Math.ceil(hintMs / 1000));
}
