import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A directed graph by name: each node's set of the nodes it imports. */
export type ImportGraph = Map<string, Set<string>>;

/** Every `.ts` file below `dir`, builds and installed packages left out. */
export function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' || entry.name === 'node_modules' ? [] : typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers a source text imports or re-exports (`from '…'`, `import('…')`, `import '…'`). */
export function importSpecifiers(text: string): string[] {
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!);
}

function addEdge(graph: ImportGraph, from: string, to: string): void {
  if (from === to) return;
  let targets = graph.get(from);
  if (!targets) graph.set(from, (targets = new Set()));
  targets.add(to);
}

/**
 * Two graphs of the files below `rootDir`'s `apps/*` and `libs/*`: packages (`apps/cli` →
 * `libs/report` for an `@sluice/report` import) and folders (`apps/cli/src/commands` →
 * `apps/cli/src/run` for a relative import).
 */
export function importGraphs(rootDir: string): { packages: ImportGraph; folders: ImportGraph } {
  const packages: ImportGraph = new Map();
  const folders: ImportGraph = new Map();
  for (const top of ['apps', 'libs']) {
    for (const pkg of readdirSync(join(rootDir, top))) {
      for (const file of typeScriptFiles(join(rootDir, top, pkg, 'src'))) {
        const folder = relative(rootDir, dirname(file));
        for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
          if (spec.startsWith('.')) addEdge(folders, folder, relative(rootDir, dirname(resolve(dirname(file), spec))));
          else if (spec.startsWith('@sluice/')) addEdge(packages, `${top}/${pkg}`, `libs/${spec.split('/')[1]}`);
        }
      }
    }
  }
  return { packages, folders };
}

/** The import circles of a graph: its strongly connected parts of two or more nodes (Tarjan). */
export function importCircles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === node ? undefined : stack.pop()) {
      onStack.delete(member);
      part.push(member);
    }
    if (part.length > 1) circles.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}
