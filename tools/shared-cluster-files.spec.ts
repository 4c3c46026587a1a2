import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SHARED_CLUSTER_FILES, TEST_SUFFIXES } from './test-files.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SUFFIX = `.${TEST_SUFFIXES.integration}.ts`;

/** Every integration file under apps, libs and tools, as a path from the repository root. */
function integrationFiles(dir = ROOT): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...integrationFiles(path));
    else if (entry.name.endsWith(SUFFIX)) files.push(relative(ROOT, path));
  }
  return files;
}

describe('the integration files that share a cluster', () => {
  // A file that reads the shared cluster outside the integration-shared project finds none; one in
  // the list that does not read it would hold a cluster's worth of tests to rules it does not need.
  it('are exactly the files that read sharedCluster(), and each of them exists', () => {
    const readers = ['apps', 'libs', 'tools']
      .flatMap((top) => integrationFiles(join(ROOT, top)))
      .filter((file) => /\bsharedCluster\(\)/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect([...SHARED_CLUSTER_FILES].sort()).toEqual(readers.sort());
  });

  it('start no cluster of their own and stop nothing', () => {
    for (const file of SHARED_CLUSTER_FILES) {
      const source = readFileSync(join(ROOT, file), 'utf8');
      expect(source, file).not.toMatch(/\bstart(Local|Traced)Cluster\(|\.signal\(|\.restartNats\(|\.stop\(\)/);
    }
  });
});
