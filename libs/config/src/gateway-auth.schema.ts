import { z } from 'zod';
import { SCHEDULING_ID_PATTERN, SCHEDULING_ID_RULE, SLO_TTFT_MS_MAX, SloClassSchema } from '@sluice/contracts';

/**
 * `gateway.auth`: API keys at the gateway (docs/security.md). Absent (the default): no keys, and
 * every request is taken as before. Present: every request needs `Authorization: Bearer <key>`
 * matching one entry, and the entry, not the request, says how it is scheduled.
 */

/** How a key is kept at rest: its SHA-256, never the key (`sha256:` and 64 hex digits). */
export const API_KEY_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/i;

const SchedulingId = z.string().regex(SCHEDULING_ID_PATTERN, `must be ${SCHEDULING_ID_RULE}`);

/** A key's rate limit: a token bucket of `burst` requests refilled at `requestsPerSecond`. */
const RateLimitSchema = z
  .strictObject({
    requestsPerSecond: z.number().positive().max(1_000_000),
    /** Requests at once after a quiet spell; default: one second's worth (at least 1). */
    burst: z.number().int().min(1).max(1_000_000).optional(),
  })
  .transform((limit) => ({ requestsPerSecond: limit.requestsPerSecond, burst: limit.burst ?? Math.max(1, Math.ceil(limit.requestsPerSecond)) }));

const ApiKeySchema = z.strictObject({
  /** Names the key in metrics (`key_id`) and logs: never the key itself. */
  id: SchedulingId,
  hash: z
    .string()
    .regex(API_KEY_HASH_PATTERN, 'must be "sha256:" and the 64 hex digits of the key\'s SHA-256, never the key itself (docs/security.md: how to hash one)')
    .transform((hash) => hash.toLowerCase()),
  /** The tenant (fairness id) every request with this key is scheduled as (the gateway's `ApiKey.fairnessId`). */
  tenant: SchedulingId,
  /** An `inferenceObjectives` name: its priority for every request with this key. */
  objective: SchedulingId.optional(),
  /** The SLO class (the priority when no objective is given; default standard). */
  sloClass: SloClassSchema.optional(),
  /** A TTFT objective for every request with this key (slo-deadline ordering). */
  sloTtftMs: z.number().positive().max(SLO_TTFT_MS_MAX).optional(),
  rateLimit: RateLimitSchema.optional(),
  /** May change the cluster at run time (`POST /busy_threshold`), and read `/metrics`. */
  admin: z.boolean().default(false),
  /** May read `/metrics` (a Prometheus scrape key); with gateway.auth, no other key may. */
  metrics: z.boolean().default(false),
});
export type ApiKeyConfig = z.infer<typeof ApiKeySchema>;

export const GatewayAuthSchema = z
  .strictObject({ keys: z.array(ApiKeySchema).min(1, 'needs at least one key (leave gateway.auth out to turn keys off)') })
  .superRefine((auth, ctx) => {
    const ids = new Set<string>();
    const hashes = new Set<string>();
    auth.keys.forEach((key, i) => {
      if (ids.has(key.id)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'id'], message: `key id "${key.id}" is listed twice` });
      // Two entries with one hash: the same key would map to two tenants, and only one could win.
      if (hashes.has(key.hash)) ctx.addIssue({ code: 'custom', path: ['keys', i, 'hash'], message: 'the same key is listed twice' });
      ids.add(key.id);
      hashes.add(key.hash);
    });
  });
export type GatewayAuthConfig = z.infer<typeof GatewayAuthSchema>;

/** A key's objective must be one configured, or its requests would all get priority 0 without a word. */
export function checkApiKeyObjectives(auth: GatewayAuthConfig | undefined, objectives: readonly { readonly name: string }[], ctx: z.RefinementCtx): void {
  const names = objectives.map((o) => o.name);
  auth?.keys.forEach((key, i) => {
    if (key.objective === undefined || names.includes(key.objective)) return;
    const allowed = names.length === 0 ? 'none are configured (inferenceObjectives)' : `allowed: ${names.join(', ')}`;
    ctx.addIssue({ code: 'custom', path: ['gateway', 'auth', 'keys', i, 'objective'], message: `"${key.objective}" is not a configured objective; ${allowed}` });
  });
}
