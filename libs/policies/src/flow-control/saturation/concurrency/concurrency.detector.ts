import { z } from 'zod';
import { snapSaturation, type SaturationDetector } from '../../ports.js';

export const CONCURRENCY_DETECTOR = 'concurrency-detector';

/** Per-endpoint limits when none is given: 100 requests, or 64 Ki tokens (prompt + max output). */
const DEFAULT_MAX_CONCURRENCY = { requests: 100, tokens: 65_536 } as const;

export const ConcurrencyDetectorParamsSchema = z
  .strictObject({
    /** What is counted: requests in flight, or their tokens (prompt + max output). */
    concurrencyMode: z.enum(['requests', 'tokens']).default('requests'),
    /** In-flight limit per endpoint, in the mode's unit (default 100 requests or 65536 tokens). */
    maxConcurrency: z.number().positive().optional(),
    /** Extra fraction allowed above the limit before dispatch stops (0.1 = 10% more). */
    headroom: z.number().nonnegative().default(0),
  })
  .transform((p) => ({ ...p, maxConcurrency: p.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY[p.concurrencyMode] }));
export type ConcurrencyDetectorParams = z.infer<typeof ConcurrencyDetectorParamsSchema>;

/**
 * Saturation from this controller's own books, not from the endpoints' reports (docs/behaviour.md §3):
 * what it has dispatched and not yet seen done, over endpoints · maxConcurrency · (1 + headroom).
 * Exact and immediate, but blind to load that reaches the endpoints some other way.
 */
export function createConcurrencyDetector(params: unknown): SaturationDetector {
  const { concurrencyMode, maxConcurrency, headroom } = ConcurrencyDetectorParamsSchema.parse(params);
  return {
    name: CONCURRENCY_DETECTOR,
    saturation({ endpoints, inFlightRequests, inFlightTokens }) {
      if (endpoints.length === 0) return 1;
      const used = concurrencyMode === 'tokens' ? inFlightTokens : inFlightRequests;
      return snapSaturation(used / (endpoints.length * maxConcurrency * (1 + headroom)));
    },
  };
}
