import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TEST_SUFFIXES, isTestFile } from './test-files.mjs';

/** nx.json is JSON and cannot import tools/test-files.mjs, so its copies are checked here. */
const nxJson = JSON.parse(readFileSync(new URL('../nx.json', import.meta.url), 'utf8')) as {
  analytics?: unknown;
  namedInputs: { production: string[] };
};

describe('nx.json', () => {
  it("leaves exactly the test files out of the build's production input", () => {
    const excluded = nxJson.namedInputs.production.filter((input) => input.startsWith('!'));
    const suffixes = excluded.map((input) => /^!\{projectRoot\}\/\*\*\/\*\.([\w-]+)\.ts$/.exec(input)?.[1] ?? `not a test-file pattern: ${input}`);
    expect(suffixes.sort()).toEqual(Object.values(TEST_SUFFIXES).sort());
  });

  it('answers the usage-data question in advance, so no Nx command prompts in a terminal', () => {
    // Nx asks on the first interactive run unless nx.json has a boolean `analytics`.
    expect(nxJson.analytics).toBe(false);
  });
});

describe('isTestFile', () => {
  it('knows every suite and nothing else', () => {
    for (const suffix of Object.values(TEST_SUFFIXES)) expect(isTestFile(`libs/x/src/a.${suffix}.ts`), suffix).toBe(true);
    for (const file of ['libs/x/src/a.ts', 'libs/x/src/spec.ts', 'libs/x/src/a.spec.js', 'libs/x/src/a.bench-spec.ts']) expect(isTestFile(file), file).toBe(false);
  });
});
