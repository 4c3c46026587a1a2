import { z } from 'zod';
import { QuantitySchema } from '@sluice/contracts';

/**
 * `gateway.limits`: what one request or one client may cost the gateway. Each refusal
 * is a 4xx naming the limit and its value; 0 turns a cap off where that is safe (docs/security.md).
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

export const GatewayLimitsSchema = z.strictObject({
  /**
   * Largest request body, in bytes (`1Mi`, `512Ki` or a number): 413 past it, before the rest is
   * read. A body is held whole while it is parsed, so there is no "no limit".
   */
  maxBodyBytes: QuantitySchema.pipe(z.number().int().min(1_024).max(1_073_741_824)).default(DEFAULT_MAX_BODY_BYTES),
  /** Most prompt tokens one request may have (0 = the model's context only): 400 past it. */
  maxPromptTokens: z.number().int().nonnegative().default(32_768),
  /** Largest `max_tokens` one request may ask for (0 = the model's context only): 400 past it. */
  maxTokens: z.number().int().nonnegative().default(8_192),
  /**
   * A streamed answer still open this long after its request arrived is ended with an error event
   * (0 = only gateway.requestTimeoutMs). Binds only when shorter than the request timeout.
   */
  maxStreamDurationMs: z.number().int().nonnegative().default(300_000),
  /**
   * Open connections one client address may hold (0 = no cap); past it a new connection is answered
   * 429 and closed. Behind a proxy every client has the proxy's address (docs/security.md).
   */
  maxConnectionsPerClient: z.number().int().nonnegative().default(4_096),
  /**
   * Open client connections in all (`auto`: the process's open-file limit less a reserve for the
   * bus, files and refusals in progress); past it a new connection is answered 503 and closed. A
   * number at or above what `auto` gives is refused at start-up: the process would run out of file
   * descriptors first, and every client would see resets instead of an answer.
   */
  maxConnections: z.union([z.literal('auto'), z.number().int().min(1, 'must be "auto" or a whole number of at least 1')], { error: 'must be "auto" or a whole number of at least 1' }).default('auto'),
});
export type GatewayLimits = z.infer<typeof GatewayLimitsSchema>;
