import { ConfigSchema } from '@sluice/config';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readConfigExample } from './readme-doc.js';

type Path = readonly PropertyKey[];
const UNKNOWN = 'notAKeyOfSluiceYaml';

/** Each mapping's path in a parsed YAML document, the root's (`[]`) first; into lists too. */
function mappingPaths(value: unknown, path: Path = []): Path[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => mappingPaths(item, [...path, i]));
  if (value === null || typeof value !== 'object') return [];
  return [path, ...Object.entries(value).flatMap(([key, child]) => mappingPaths(child, [...path, key]))];
}

/** The document with one more key in the mapping at `path`. */
function withUnknownKey(document: unknown, path: Path): unknown {
  const copy = structuredClone(document) as Record<PropertyKey, unknown>;
  const mapping = path.reduce<Record<PropertyKey, unknown>>((node, key) => node[key] as Record<PropertyKey, unknown>, copy);
  mapping[UNKNOWN] = 1;
  return copy;
}

const dotted = (path: Path) => path.map(String).join('.');

/**
 * The example `sluice.yaml` of the README's "Configure" is a real config: the schema takes it
 * as it is, and would refuse a misspelt key anywhere in it.
 */
describe("README.md's example sluice.yaml", () => {
  const example = readConfigExample();
  const document = parse(example?.value ?? '') as unknown;

  it('is a valid config: every key one the schema knows, every value allowed', () => {
    expect(example, 'README.md: a ```yaml block under "## Configure"').toBeDefined();
    const result = ConfigSchema.safeParse(document);
    const problems = result.success
      ? []
      : result.error.issues.map((issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown key ${issue.keys.map((key) => dotted([...issue.path, key])).join(', ')}`
            : `${dotted(issue.path)}: ${issue.message}`,
        );
    expect(problems, `README.md:${example?.line}: the example sluice.yaml`).toEqual([]);
  });

  // Were one of its sections not strict, the check above would pass a misspelt key there unseen.
  it('is checked strictly: a key the schema does not know is refused in every mapping it has', () => {
    const mappings = mappingPaths(document);
    expect(mappings.length).toBeGreaterThan(20);
    const lax = mappings.filter((path) => {
      const result = ConfigSchema.safeParse(withUnknownKey(document, path));
      return result.success || !result.error.issues.some((issue) => issue.code === 'unrecognized_keys' && issue.keys.includes(UNKNOWN) && dotted(issue.path) === dotted(path));
    });
    expect(lax.map((path) => `${dotted(path) || '(top level)'} takes unknown keys`)).toEqual([]);
  });
});
