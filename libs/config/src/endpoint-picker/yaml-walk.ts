/*
 * What the translators of foreign config (the Endpoint Picker's, Kubernetes objects) share: a
 * mapping test, a check that a mapping holds only known fields, and the path notation every
 * refusal starts with (`plugins[3].parameters.scheme`), so a user finds the line in their file.
 */

export type Tree = Record<string, unknown>;

export const isMapping = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `plugins` + 3 → `plugins[3]`; `plugins[3]` + `type` → `plugins[3].type`. */
export function at(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path === '' ? key : `${path}.${key}`;
}

/** Collects refusals, each `path: message`. */
export class Problems {
  readonly lines: string[] = [];
  add(path: string, message: string): void {
    this.lines.push(`${path === '' ? '(top level)' : path}: ${message}`);
  }
}

/** Refuses every field of `value` not in `known`, naming `what` holds the known ones. */
export function checkFields(value: Tree, known: readonly string[], path: string, what: string, problems: Problems): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) problems.add(at(path, key), `is not a field sluice reads in ${what} (known: ${known.join(', ')})`);
  }
}

/** A list at `path`, or a refusal; absent is an empty list. */
export function listAt(value: unknown, path: string, problems: Problems): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  problems.add(path, 'must be a list');
  return [];
}

/** Sets `value` at the dotted `path` of `tree`, making the mappings on the way. */
export function setIn(tree: Tree, path: readonly string[], value: unknown): void {
  let node = tree;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    if (!isMapping(node[key])) node[key] = {};
    node = node[key] as Tree;
  });
}
