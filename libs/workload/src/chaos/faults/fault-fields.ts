import { z } from 'zod';

/** The fields every fault's schema is made of, so each fault says "ms" and "percent" alike. */

export const Ms = z.number().int('must be a whole number of ms').nonnegative('must be >= 0');
export const PositiveMs = z.number().int('must be a whole number of ms').positive('must be > 0');
export const Percent = z.number().min(0, 'must be >= 0').max(100, 'must be <= 100');

/** When a fault fires (ms from the first request) and an optional note for the report. */
export const AT = { atMs: Ms, note: z.string().optional() };
