import { REPO_ROOT } from '@sluice/launcher';
import { describe, expect, it } from 'vitest';
import { importCircles, importGraphs, importSpecifiers, type ImportGraph } from './import-graph.js';

const graph = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

describe('importCircles', () => {
  it('finds each circle once, whatever its length, and nothing in a graph without one', () => {
    expect(importCircles(graph({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c']]);
    expect(importCircles(graph({ a: ['b'], b: ['a'], c: ['d'], d: ['c'] }))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    expect(importCircles(graph({ a: ['b', 'c'], b: ['c'], c: [] }))).toEqual([]);
  });

  it('reads imports, re-exports and dynamic imports', () => {
    const text = "import { a } from './a.js';\nexport * from '../b/index.js';\nconst c = await import('@sluice/c');\nimport type { D } from 'd';";
    expect(importSpecifiers(text)).toEqual(['./a.js', '../b/index.js', '@sluice/c', 'd']);
  });
});

/**
 * Layers that can be read, tested and replaced from the bottom up: no package imports one that
 * imports it back, and no folder of an app does (specs count too: a spec that needs a package
 * which needs the spec's own package is a circle as well).
 */
describe('the repository', () => {
  const { packages, folders } = importGraphs(REPO_ROOT);

  it('has no import circle between packages', () => {
    expect(packages.get('apps/cli')).toContain('libs/report');
    expect(importCircles(packages)).toEqual([]);
  });

  it('has no import circle between the folders of an app', () => {
    expect(folders.get('apps/cli/src/commands')).toContain('apps/cli/src/run');
    const ofApps = importCircles(folders).filter((circle) => circle.some((folder) => folder.startsWith('apps/')));
    expect(ofApps).toEqual([]);
  });
});
