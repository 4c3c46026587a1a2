import { z } from 'zod';
import type { AdmissionPolicy } from '../admission-policy.js';

export const TOKEN_BUCKET = 'token-bucket';

export const TokenBucketParamsSchema = z.strictObject({
  /** The largest burst, in prompt tokens; also the level the bucket starts at. */
  capacity: z.number().positive().default(10_000),
  /** Prompt tokens per second added back; 0 = a one-off allowance that never refills. */
  refillRate: z.number().nonnegative().default(1_000),
});
export type TokenBucketParams = z.infer<typeof TokenBucketParamsSchema>;

/**
 * Rate-limits prompt tokens (docs/behaviour.md §2, as BLIS's token-bucket admission): the bucket
 * starts full, refills continuously at `refillRate` up to `capacity`, and a request costs its
 * input token count. A request dearer than the whole capacity can never be admitted, by design.
 *
 * Refill is computed lazily at each decision from the time since the previous one, so the policy
 * needs no timer. One policy instance is one bucket: the state is this closure's.
 *
 * **sluice**, replicas: with N admission processes behind one queue group, each holds 1/N of the
 * capacity and of the refill rate, so together they admit what one bucket would (a burst split
 * among them drains every share). When N changes, a share that shrank is clipped to its new
 * capacity and one that grew refills toward it (docs/scaling.md).
 */
export function createTokenBucket(params: unknown): AdmissionPolicy {
  const { capacity: total, refillRate: totalRate } = TokenBucketParamsSchema.parse(params);
  let tokens = total;
  /** The latest time seen; undefined until the first decision (the bucket is full then anyway). */
  let lastUs: number | undefined;

  return {
    name: TOKEN_BUCKET,
    decide(request, _cluster, nowUs, replicas = 1) {
      const share = Math.max(1, replicas);
      const capacity = total / share;
      const refillRate = totalRate / share;
      if (lastUs !== undefined) {
        // Clamp: a clock that steps back must not drain the bucket. Keeping the latest time (not
        // the earlier one) also means the interval is not refilled twice when time moves on.
        const elapsedUs = Math.max(0, nowUs - lastUs);
        tokens = tokens + (elapsedUs * refillRate) / 1e6;
      }
      tokens = Math.min(capacity, tokens);
      lastUs = lastUs === undefined ? nowUs : Math.max(lastUs, nowUs);

      const cost = request.inputTokens;
      const before = tokens;
      const shared: { replicas?: number } = share > 1 ? { replicas: share } : {};
      if (before >= cost) {
        tokens = before - cost;
        return { admit: true, inputs: { cost, bucket_level_before: before, bucket_level_after: tokens, capacity, ...shared } };
      }
      // The refill time to the request's cost, when refill can ever get there (a request dearer
      // than the capacity, or a bucket that never refills, has no such time).
      const refillMs = refillRate > 0 && cost <= capacity ? ((cost - before) * 1000) / refillRate : undefined;
      return {
        admit: false,
        reason: 'insufficient_tokens',
        message: `insufficient tokens: the request costs ${cost}, the bucket holds ${before.toFixed(1)}`,
        inputs: { cost, bucket_level_before: before, bucket_level_after: before, capacity, ...shared },
        ...(refillMs !== undefined && { retryAfterMs: refillMs }),
      };
    },
  };
}
