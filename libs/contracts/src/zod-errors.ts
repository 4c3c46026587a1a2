import type { z } from 'zod';

/** `a.b[2].c` from a zod issue path. */
export function issuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** One line per issue, each naming the field: what a user reads to fix the input. */
export function describeZodError(error: z.ZodError, root = ''): string[] {
  return error.issues.map((issue) => {
    const path = issuePath([...(root ? [root] : []), ...issue.path]);
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}
