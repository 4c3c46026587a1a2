import { isSubjectToken } from '../subjects.js';
import { MAX_ID_LENGTH, MAX_NAME_LENGTH, MAX_REQUEST_TOKENS } from '../wire-limits.js';

/**
 * The checks the fast validators are made of, each the exact acceptance rule of one zod 4
 * building block of the wire schemas (wire-limits.ts), written out so a hot message is checked
 * by plain comparisons instead of zod's per-field runs. Each may be stricter than zod, never
 * looser: what it refuses goes to zod, which decides.
 */

/**
 * An object as `JSON.parse` makes it. Zod also takes class instances and objects without a
 * prototype, but returns a plain object for them: not the input, so the fast path leaves them to it.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** How many keys an object has: compared with the number of known fields found, it tells whether any key is unknown (zod would strip it). */
export function keyCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const key in value) if (Object.hasOwn(value, key)) count++;
  return count;
}

/** `z.number()`: zod 4 refuses NaN and ±Infinity. */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** `z.number().nonnegative()`. */
export function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/** `z.number().min(0).max(1)`: a share. */
export function isShare(value: unknown): value is number {
  return typeof value === 'number' && value >= 0 && value <= 1;
}

/** `z.number().int().min(min).max(max)`: zod 4's `int()` takes safe integers only. */
export function isIntIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/** `z.number().int().nonnegative()` with no upper bound but the safe integers'. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** `TokenCountSchema`. */
export function isTokenCount(value: unknown): value is number {
  return isIntIn(value, 0, MAX_REQUEST_TOKENS);
}

/** `z.string().min(min).max(max)` (lengths in UTF-16 code units, as zod counts them). */
export function isStringOf(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max;
}

/** `z.array(BlockIdSchema).max(max)`: block ids (non-negative safe integers), at most `max` of them. */
export function isBlockIds(value: unknown, max: number): value is number[] {
  if (!Array.isArray(value) || value.length > max) return false;
  for (let i = 0; i < value.length; i++) if (!isIntIn(value[i], 0, Number.MAX_SAFE_INTEGER)) return false;
  return true;
}

/** `IdSchema`. */
export function isId(value: unknown): value is string {
  return isStringOf(value, 1, MAX_ID_LENGTH);
}

/** `SubjectIdSchema`. */
export function isSubjectId(value: unknown): value is string {
  return isStringOf(value, 1, MAX_ID_LENGTH) && isSubjectToken(value);
}

/** `NameSchema`. */
export function isName(value: unknown): value is string {
  return isStringOf(value, 1, MAX_NAME_LENGTH);
}

/**
 * The fields a fast validator knows of one object schema: `required` are those it insists on,
 * those zod would refuse or fill with a default when absent; `optional`, those zod leaves out when
 * absent. The spec holds both lists to the schema's shape, so a field added to the schema cannot
 * be forgotten here.
 */
export interface KnownFields {
  readonly required: readonly string[];
  readonly optional: readonly string[];
}
