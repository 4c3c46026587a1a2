import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@sluice/launcher';
import { describe, expect, it } from 'vitest';
import { docPaths, markdownFiles, pathExists, topLevelFolders } from './doc-paths.js';

const FOLDERS = ['apps', 'libs', 'docs', '.ci'];
const pathsOf = (text: string, doc = 'docs/x.md') => docPaths(doc, text, FOLDERS).map((p) => `${p.line}:${p.path}`);

describe('docPaths', () => {
  it('finds paths in backticks, prose and command lines, with their lines, trailing punctuation and line numbers left off', () => {
    const text = ['See `libs/twin/src/world.ts`.', 'run node libs/twin/bench/records-hash.mjs: it prints', 'in libs/bus/src/bus.ts:42, and .ci/run'].join('\n');
    expect(pathsOf(text)).toEqual(['1:libs/twin/src/world.ts', '2:libs/twin/bench/records-hash.mjs', '3:libs/bus/src/bus.ts', '3:.ci/run']);
  });

  it('resolves link targets from the doc folder, without their anchors, and skips web links and anchors alone', () => {
    const text = '[stages](../libs/stages/README.md), [§6](behaviour.md#6-fault-tolerance), [web](https://x.io/a), [up](#processes)';
    expect(pathsOf(text)).toEqual(['1:libs/stages/README.md', '1:docs/behaviour.md']);
    expect(pathsOf('[a](src/a.ts)', 'libs/x/README.md')).toEqual(['1:libs/x/src/a.ts']);
  });

  it('turns placeholders into globs, and leaves out build outputs, other repositories and words that only contain a folder name', () => {
    const text = [
      '`apps/<service>/src/*-on-bus.ts`',
      '`apps/<name>/dist/main.js`',
      'vllm `docs/observability/grafana.json` @4b5c627 and `apps/gateway/x.json`@466670e',
      'layer:libs and sub/apps/x',
    ].join('\n');
    expect(pathsOf(text)).toEqual(['1:apps/*/src/*-on-bus.ts']);
  });
});

describe('pathExists', () => {
  it('takes a path or a glob relative to the root', () => {
    expect(pathExists(REPO_ROOT, 'libs/testing/src/doc-paths.ts')).toBe(true);
    expect(pathExists(REPO_ROOT, 'libs/testing/src/no-such-file.ts')).toBe(false);
    expect(pathExists(REPO_ROOT, 'apps/*/src/*-on-bus.ts')).toBe(true);
    expect(pathExists(REPO_ROOT, 'apps/*/src/*-no-such.ts')).toBe(false);
  });
});

/**
 * Every path a doc of this repository names is in the tree: a file moved or renamed fails here,
 * naming the doc, the line and the path, instead of leaving a reader to find it gone.
 */
describe('the repository docs', () => {
  const folders = topLevelFolders(REPO_ROOT);
  const docs = markdownFiles(REPO_ROOT);

  it('are README.md, docs/ and the libraries', () => {
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'libs/telemetry/README.md']));
  });

  it('name only paths that exist', () => {
    const named = docs.flatMap((doc) => docPaths(doc, readFileSync(join(REPO_ROOT, doc), 'utf8'), folders));
    expect(named.length).toBeGreaterThan(300);
    const missing = named.filter((p) => !pathExists(REPO_ROOT, p.path)).map((p) => `${p.doc}:${p.line}: ${p.written} does not exist`);
    expect(missing).toEqual([]);
  });
});
