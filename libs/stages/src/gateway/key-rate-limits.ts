import type { Micros } from '@sluice/contracts';

/** An API key's rate limit (gateway.auth.keys[].rateLimit): a sustained rate and the burst above it. */
export interface RequestRate {
  readonly requestsPerSecond: number;
  /** Requests a key may send at once after a quiet spell: the bucket's size. */
  readonly burst: number;
}

/** Taken, or refused with how long until one request would be: the 429's `retry-after`. */
export type RateDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

/**
 * One token bucket per API key, a request costing one token: a key may send `burst` requests at
 * once, then `requestsPerSecond` on average. Buckets are kept by key id, and ids come from the
 * config only, so their number is bounded by the keys configured, whatever clients send.
 */
export class KeyRateLimits {
  private readonly buckets = new Map<string, { level: number; atUs: number }>();

  take(keyId: string, rate: RequestRate, nowUs: Micros): RateDecision {
    let bucket = this.buckets.get(keyId);
    if (bucket === undefined) {
      bucket = { level: rate.burst, atUs: nowUs };
      this.buckets.set(keyId, bucket);
    }
    // A clock that steps back refills nothing (and does not refill twice once it catches up).
    const elapsedUs = Math.max(0, nowUs - bucket.atUs);
    bucket.atUs = Math.max(bucket.atUs, nowUs);
    bucket.level = Math.min(rate.burst, bucket.level + (elapsedUs * rate.requestsPerSecond) / 1e6);
    if (bucket.level >= 1) {
      bucket.level -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil(((1 - bucket.level) * 1_000) / rate.requestsPerSecond) };
  }
}
