import { z } from 'zod';

/**
 * Kubernetes-style quantities and Go-style durations, as the Endpoint Picker's config writes
 * them: `maxBytes: 10Gi`, `maxRequests: 1k`, `defaultRequestTTL: 60s`. A plain number is also
 * accepted (a count, or milliseconds for a duration).
 */

/** Suffixes of resource.Quantity: binary (powers of 1024) and decimal SI. */
const QUANTITY_SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY = /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;

/** A whole, non-negative quantity; fractions round up, as Quantity.Value() does. Throws on bad input. */
export function parseQuantity(text: string): number {
  const match = QUANTITY.exec(text.trim());
  if (!match) {
    throw new Error(`"${text}" is not a quantity: use a whole number, optionally with a suffix (k, M, G, T, Ki, Mi, Gi, Ti), e.g. 1k or 10Gi`);
  }
  return Math.ceil(Number(match[1]) * QUANTITY_SUFFIXES[match[2] ?? '']!);
}

/** A count or size in config: `500`, `"1k"`, `"10Gi"`. 0 means no limit where a limit is meant. */
export const QuantitySchema = z.union([z.number().int().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  try {
    return parseQuantity(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

const DURATION_UNITS_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(?:[0-9]+(?:\.[0-9]+)?(?:ms|s|m|h))+$/;
const DURATION_PART = /([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g;

/** Milliseconds in a Go-style duration (`250ms`, `60s`, `1m30s`). Throws on bad input. */
export function parseDurationMs(text: string): number {
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) {
    throw new Error(`"${text}" is not a duration: use a number with a unit (ms, s, m, h), e.g. 500ms, 60s or 1m30s`);
  }
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(DURATION_PART)) ms += Number(amount) * DURATION_UNITS_MS[unit!]!;
  return ms;
}

/** A duration in config: `"60s"`, `"250ms"`, or a number of milliseconds. */
export const DurationSchema = z.union([z.number().nonnegative(), z.string()]).transform((value, ctx) => {
  if (typeof value === 'number') return value;
  try {
    return parseDurationMs(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});
