import type { z } from 'zod';

/*
 * The one way sluice words a validation problem: `where: what`, where naming the key path
 * (`clients[1].arrival.cv`) and what saying what is wrong or what is allowed. Config, workload
 * specs, trace headers, scorer weights and every message at the bus's edge go through here.
 */

/** `a.b[2].c` from a zod issue path. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** One problem in a document: where (`clients[1].arrival.cv`; '' for the whole document) and what. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** `where: what`, or `what` alone for the whole document; a path given as keys is written by issuePath. */
export function formatFieldIssue(issue: { readonly path: string | readonly PropertyKey[]; readonly message: string }): string {
  const path = typeof issue.path === 'string' ? issue.path : issuePath(issue.path);
  return path === '' ? issue.message : `${path}: ${issue.message}`;
}

export interface ZodErrorContext {
  /** Put in front of every path: the schema checked one part of a larger document (`params`). */
  readonly root?: string;
  /**
   * The value the schema checked. With it, each issue is worded against what was there: a key
   * that is missing "is required" (with the allowed values where the schema lists them), each
   * key not allowed is an "unknown key", a wrong value "must be one of a | b" or "must be a
   * number". Without it, zod's own messages (or the schema's) stand as they are.
   */
  readonly input?: unknown;
}

type ZodIssue = z.ZodError['issues'][number];

/** The value at a zod issue's path in the raw input: undefined tells a missing key from a wrong value. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function describeType(expected: string): string {
  if (expected === 'array') return 'a list';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/** The allowed values an issue lists: an enum's, or a discriminated union's tags. */
function allowedValues(issue: ZodIssue): string | undefined {
  if (issue.code === 'invalid_value') return issue.values.map(String).join(' | ');
  if (issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options)) return issue.options.map(String).join(' | ');
  return undefined;
}

/** One zod issue worded against the checked input; unknown keys become one issue each. */
function wordedAgainst(input: unknown, issue: ZodIssue): { path: readonly PropertyKey[]; message: string }[] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: [...issue.path, key], message: 'unknown key' }));
  const allowed = allowedValues(issue);
  // A rule of the schema's own (a refinement) says best what is wrong, even about a missing key.
  if (issue.code !== 'custom' && valueAt(input, issue.path) === undefined) {
    return [{ path: issue.path, message: allowed === undefined ? 'is required' : `is required (one of ${allowed})` }];
  }
  if (allowed !== undefined) {
    const single = issue.code === 'invalid_value' && issue.values.length === 1;
    return [{ path: issue.path, message: single ? `must be ${allowed}` : `must be one of ${allowed}` }];
  }
  if (issue.code === 'invalid_type') return [{ path: issue.path, message: `must be ${describeType(issue.expected)}` }];
  return [{ path: issue.path, message: issue.message }];
}

/** Every problem of a failed parse, each naming its key path (see ZodErrorContext for the wording). */
export function zodFieldIssues(error: z.ZodError, context: string | ZodErrorContext = {}): FieldIssue[] {
  const { root = '', ...against }: ZodErrorContext = typeof context === 'string' ? { root: context } : context;
  const prefix = root === '' ? [] : [root];
  // `in`, not `!== undefined`: an input that is itself undefined (an empty document) still counts.
  const worded = 'input' in against ? error.issues.flatMap((issue) => wordedAgainst(against.input, issue)) : error.issues;
  return worded.map((issue) => ({ path: issuePath([...prefix, ...issue.path]), message: issue.message }));
}

/** One line per issue, each naming the field: what a user reads to fix the input. */
export function describeZodError(error: z.ZodError, context: string | ZodErrorContext = {}): string[] {
  return zodFieldIssues(error, context).map(formatFieldIssue);
}
