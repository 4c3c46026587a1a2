import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { z } from 'zod';
import { MIGRATION_REASONS, RESUME_STAGES } from '../../frames.js';
import { OUTCOME_REASON_NAMES, STAGES } from '../../outcomes.js';
import { SloClassSchema } from '../../slo.js';
import {
  MAX_BODY_BYTES,
  MAX_CLOCK_ID_LENGTH,
  MAX_ID_LENGTH,
  MAX_KV_BLOCKS,
  MAX_MESSAGE_LENGTH,
  MAX_NAME_LENGTH,
  MAX_PRIORITY,
  MAX_RANK,
  MAX_REPLY_TO_LENGTH,
  MAX_REQUEST_TOKENS,
  MIN_PRIORITY,
} from '../../wire-limits.js';
import type { FastValidator } from '../fast-validators.js';
import type { KnownFields } from '../wire-checks.js';

/**
 * Arbitraries for the fast validators' property specs: valid messages, and near misses of them
 * (one or two places anywhere in the message replaced by a value just past a bound, of the wrong
 * type, NaN or ±Infinity, removed, or joined by an unknown key), and the property itself.
 */

/** A subject token of 1–128 characters. */
export const subjectIdArb = fc.string({ unit: fc.constantFrom(...'abcXYZ019_-'), minLength: 1, maxLength: MAX_ID_LENGTH });
/** An id: any characters, 1–128 of them. */
export const idArb = fc.oneof(subjectIdArb, fc.string({ minLength: 1, maxLength: MAX_ID_LENGTH }));
export const nameArb = fc.string({ minLength: 1, maxLength: MAX_NAME_LENGTH });
export const tokenCountArb = fc.oneof(fc.integer({ min: 0, max: 64 }), fc.integer({ min: 0, max: MAX_REQUEST_TOKENS }), fc.constant(MAX_REQUEST_TOKENS));
export const finiteArb = fc.double({ noNaN: true, noDefaultInfinity: true });
export const nonNegativeArb = fc.oneof(fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }), fc.nat());
export const shareArb = fc.double({ min: 0, max: 1, noNaN: true });
export const epochMicrosArb = fc.integer({ min: 1_700_000_000_000_000, max: 1_900_000_000_000_000 });

/** Lengths at and just past every string bound the wire has. */
const STRING_LENGTHS = [0, 1, MAX_CLOCK_ID_LENGTH - 1, MAX_CLOCK_ID_LENGTH, MAX_CLOCK_ID_LENGTH + 1, MAX_ID_LENGTH, MAX_ID_LENGTH + 1, MAX_NAME_LENGTH, MAX_NAME_LENGTH + 1, MAX_REPLY_TO_LENGTH, MAX_REPLY_TO_LENGTH + 1, MAX_MESSAGE_LENGTH + 1];
/** Numbers at and just past every numeric bound the wire has, and what no number field takes. */
const NUMBERS = [
  0, -0, 1, -1, 0.5, -0.5, 1.5, 2, 15, 16, 17, 1000, 10_000, 10_001, MAX_RANK, MAX_RANK + 1,
  MAX_REQUEST_TOKENS, MAX_REQUEST_TOKENS + 1, MAX_PRIORITY, MAX_KV_BLOCKS, MAX_KV_BLOCKS + 1, MIN_PRIORITY, MIN_PRIORITY - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1,
  Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE,
  NaN, Infinity, -Infinity,
];
/** Every enum value of the wire and a few words that are none. */
const WORDS = [
  ...SloClassSchema.options, ...STAGES, ...OUTCOME_REASON_NAMES, ...MIGRATION_REASONS, ...RESUME_STAGES,
  'tokens', 'tokens-batch', 'end', 'held', 'error', 'migrate', 'gold', 'OK', 'a.b', 'a*', 'a b', '>', 'sluice.v1.inbox.a.b',
];
/** Keys no wire object has, some of them traps for a validator that reads `key in value`. */
const EXTRA_KEYS = ['extra', '__proto__', 'constructor', 'toString', 'hasOwnProperty', ''];

const oddValueArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.constantFrom(...WORDS),
  fc.constantFrom(...STRING_LENGTHS).map((n) => 'x'.repeat(n)),
  fc.constantFrom<unknown>(true, false, null, undefined, [], {}, [1], ['a'], { type: 'held' }),
  fc.jsonValue({ maxDepth: 2 }),
);

type Mutation = { readonly kind: 'set'; readonly value: unknown } | { readonly kind: 'delete' } | { readonly kind: 'extra'; readonly key: string; readonly value: unknown };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: oddValueArb.map((value): Mutation => ({ kind: 'set', value })) },
  { weight: 2, arbitrary: fc.constant<Mutation>({ kind: 'delete' }) },
  { weight: 1, arbitrary: fc.record({ key: fc.oneof(fc.constantFrom(...EXTRA_KEYS), fc.string({ maxLength: 8 })), value: oddValueArb }).map((m): Mutation => ({ kind: 'extra', ...m })) },
);

/** Every object and array in a JSON value with the keys it holds: the places a mutation can hit. */
function places(root: unknown): { readonly holder: Record<string, unknown> | unknown[]; readonly key: string | number | undefined }[] {
  const found: { holder: Record<string, unknown> | unknown[]; key: string | number | undefined }[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      found.push({ holder: value, key: undefined });
      value.forEach((item, i) => {
        found.push({ holder: value, key: i });
        visit(item);
      });
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      found.push({ holder: record, key: undefined });
      for (const key of Object.keys(record)) {
        found.push({ holder: record, key });
        visit(record[key]);
      }
    }
  };
  visit(root);
  return found;
}

/** `message` with one place changed: the `pick`-th place (modulo their number) gets the mutation. */
function mutate(message: unknown, pick: number, mutation: Mutation): unknown {
  const copy: unknown = structuredClone(message);
  const all = places(copy);
  const place = all[pick % all.length]!;
  const { holder, key } = place;
  if (mutation.kind === 'extra' || key === undefined) {
    if (Array.isArray(holder)) holder.push(mutation.kind === 'set' || mutation.kind === 'extra' ? mutation.value : undefined);
    else Object.defineProperty(holder, mutation.kind === 'extra' ? mutation.key : 'extra', { value: mutation.kind === 'delete' ? undefined : mutation.value, enumerable: true, writable: true, configurable: true });
    return copy;
  }
  if (mutation.kind === 'delete') {
    if (Array.isArray(holder)) holder.splice(key as number, 1);
    else delete holder[key as string];
  } else if (Array.isArray(holder)) holder[key as number] = mutation.value;
  else holder[key as string] = mutation.value;
  return copy;
}

/** A message and the valid one it was made from (itself, when it is valid). */
export interface NearMiss {
  readonly origin: unknown;
  readonly message: unknown;
}

/** Valid messages, and near misses of them with one or two places changed. */
export function nearMisses(valid: fc.Arbitrary<unknown>): fc.Arbitrary<NearMiss> {
  const once = fc.tuple(valid, fc.nat(), mutationArb).map(([origin, pick, mutation]) => ({ origin, message: mutate(origin, pick, mutation) }));
  const twice = fc.tuple(once, fc.nat(), mutationArb).map(([{ origin, message }, pick, mutation]) => ({ origin, message: mutate(message, pick, mutation) }));
  return fc.oneof({ weight: 1, arbitrary: valid.map((origin) => ({ origin, message: origin })) }, { weight: 3, arbitrary: once }, { weight: 1, arbitrary: twice });
}

/** Why `fast` is unsound on `value` (it accepts what zod refuses, or what zod would change), or undefined. */
export function unsoundness(schema: z.ZodType, fast: FastValidator, value: unknown): string | undefined {
  if (!fast(value)) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) return `accepted what zod refuses: ${parsed.error.message}`;
  // Strict: prototypes, -0 and absent against undefined keys count, as they would for a reader of the message.
  return isDeepStrictEqual(parsed.data, value) ? undefined : 'accepted what zod returns changed';
}

/**
 * The soundness property: whatever the validator accepts, zod accepts and returns unchanged. The
 * validator is given the near miss's origin too, so a spec can sabotage it (see `skipping`).
 */
export function soundnessProperty(schema: z.ZodType, fast: (value: unknown, origin: unknown) => boolean, messages: fc.Arbitrary<NearMiss>): fc.IPropertyWithHooks<[NearMiss]> {
  return fc.property(messages, ({ origin, message }) => {
    const why = unsoundness(schema, (value) => fast(value, origin), message);
    if (why !== undefined) throw new Error(why);
  });
}

/**
 * `fast` sabotaged so that it no longer checks one top-level field: it judges the message with
 * that field put back as the valid origin had it. The soundness property must catch each such
 * validator, or the near misses never reach that field.
 */
export function skipping(fast: FastValidator, key: string): (value: unknown, origin: unknown) => boolean {
  return (value, origin) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return fast(value);
    const restored: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const original = (origin as Record<string, unknown>)[key];
    if (original === undefined) delete restored[key];
    else restored[key] = original;
    return fast(restored);
  };
}

/** `fast` sabotaged so that it ignores unknown keys: it judges the message with only the known ones. */
export function ignoringUnknownKeys(fast: FastValidator, fields: KnownFields): FastValidator {
  const known = new Set([...fields.required, ...fields.optional]);
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return fast(value);
    return fast(Object.fromEntries(Object.entries(value).filter(([key]) => known.has(key))));
  };
}

/**
 * The fields of `schema`'s shape as a fast validator must know them: the optional ones (zod
 * leaves them out when absent) and the required ones (zod refuses or fills them when absent).
 */
export function fieldsOfShape(schema: z.ZodObject): KnownFields {
  const required: string[] = [];
  const optional: string[] = [];
  for (const [key, field] of Object.entries(schema.shape)) {
    const absent = (field as z.ZodType).safeParse(undefined);
    (absent.success && absent.data === undefined ? optional : required).push(key);
  }
  return { required: required.sort(), optional: optional.sort() };
}

/** The same lists, sorted, to compare with `fieldsOfShape`. */
export function sortedFields(fields: KnownFields): KnownFields {
  return { required: [...fields.required].sort(), optional: [...fields.optional].sort() };
}
