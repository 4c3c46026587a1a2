import { existsSync, globSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** A path of this repository that a doc names, and where. */
export interface DocPath {
  /** The doc, relative to the repository's root. */
  readonly doc: string;
  readonly line: number;
  /** As written (placeholders and globs included). */
  readonly written: string;
  /** Relative to the repository's root, `<placeholder>` as `*`; a glob when it has `*`. */
  readonly path: string;
}

/** Folders no doc points into: installed packages, builds, caches, a run's own output. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'coverage', '.git', '.nx', '.sluice']);

/** The repository's top-level folders: a word starting with one of them and a `/` is a path. */
export function topLevelFolders(root: string): string[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_SOURCE.has(entry.name))
    .map((entry) => entry.name);
}

/** Every markdown file of the repository (README.md, docs/, each library's README), relative to the root. */
export function markdownFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return NOT_SOURCE.has(entry.name) ? [] : markdownFiles(root, path);
    return entry.name.endsWith('.md') ? [relative(root, path)] : [];
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The repository paths a doc names: words that start with a top-level folder (`libs/twin/src/world.ts`,
 * in backticks, prose or a command line) and relative link targets (`[x](../libs/stages/README.md)`,
 * from the doc's folder). Left out: what the build makes (a `dist` folder), and another
 * repository's path, which the docs write with its commit after it (`` `tools/x.json` @466670e ``).
 */
export function docPaths(doc: string, text: string, folders: readonly string[]): DocPath[] {
  const word = new RegExp(`(?<![\\w./-])(?:${folders.map(escape).join('|')})/[^\\s\`'"(),;:|\\]]*`, 'g');
  const found: DocPath[] = [];
  text.split('\n').forEach((content, i) => {
    const add = (written: string, fromRoot: string) => {
      const path = fromRoot.replace(/<[^>]+>/g, '*').replace(/[#?].*$/, '').replace(/\/+$/, '');
      if (path.split('/').some((segment) => NOT_SOURCE.has(segment))) return;
      found.push({ doc, line: i + 1, written, path });
    };
    for (const m of content.matchAll(word)) {
      const written = m[0].replace(/[.]+$/, '');
      const after = content.slice(m.index + m[0].length);
      if (/^`?\s*@[0-9a-f]{7,40}\b/.test(after)) continue;
      add(written, written);
    }
    for (const m of content.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^([a-z]+:|#)/.test(target)) continue;
      add(target, join(dirname(doc), target));
    }
  });
  return found;
}

/** Whether a doc's path is in the tree under `root` (a glob: whether anything matches it). */
export function pathExists(root: string, path: string): boolean {
  return path.includes('*') ? globSync(path, { cwd: root }).length > 0 : existsSync(join(root, path));
}
