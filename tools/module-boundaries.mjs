// The lint rule behind the project tags: which workspace package may import which, decided by the
// tags in each package's package.json (`"nx": { "tags": [...] }`, where Nx reads them too). The
// constraints themselves live in eslint.config.js; this file only knows how to apply them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * @typedef {{ name: string, root: string, tags: string[] }} Project
 *   root: absolute directory; name: the package name other code imports it by.
 * @typedef {{ sourceTag: string, onlyDependOnLibsWithTags?: string[], notDependOnLibsWithTags?: string[] }} Constraint
 *   Nx's depConstraints shape: a project with sourceTag may import only projects carrying at least
 *   one of onlyDependOnLibsWithTags, and none carrying any of notDependOnLibsWithTags.
 * @typedef {{ file: string, imports: string, reason: string }} KnownViolation
 *   One import that breaks a constraint today and is being removed: file relative to the root.
 */

/** The workspace root above a path: the nearest package.json that declares workspaces. */
export function findWorkspaceRoot(from) {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).workspaces) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The folder names under dir, or none if it does not exist. */
function subdirectories(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((entry) => statSync(join(dir, entry)).isDirectory());
}

/**
 * Every workspace package under root, as npm (and so Nx) finds them: the `workspaces` patterns of
 * the root package.json. Only `folder/*` patterns are understood, which is all this repo uses; any
 * other pattern is an error rather than a silently unchecked package.
 * @returns {Project[]}
 */
export function readProjects(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const projects = [];
  for (const pattern of workspaces) {
    if (!/^[\w.-]+(\/[\w.-]+)*\/\*$/.test(pattern)) throw new Error(`module boundaries: workspace pattern "${pattern}" is not of the form folder/*`);
    const parent = join(root, pattern.slice(0, -2));
    for (const entry of subdirectories(parent)) {
      const manifest = join(parent, entry, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8'));
      projects.push({ name: pkg.name, root: join(parent, entry), tags: pkg.nx?.tags ?? [] });
    }
  }
  return projects;
}

// Linting runs the rule once per file; the packages are read again only when the set of package
// folders changes (a test adds one), not for every file.
const cache = new Map();
function projectsUnder(root) {
  const { workspaces } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const key = workspaces.map((pattern) => `${pattern}:${subdirectories(join(root, pattern.replace(/\/\*$/, ''))).join(',')}`).join(';');
  const cached = cache.get(root);
  if (cached?.key === key) return cached.projects;
  const projects = readProjects(root);
  cache.set(root, { key, projects });
  return projects;
}

function projectOfPath(projects, path) {
  return projects.find((p) => path === p.root || path.startsWith(p.root + sep));
}

/** The project a module specifier names: a workspace package by name, or a relative path into one. */
function projectOfSpecifier(projects, specifier, fromFile) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) return projectOfPath(projects, resolve(dirname(fromFile), specifier));
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return projects.find((p) => p.name === name);
}

const list = (tags) => tags.map((t) => `"${t}"`).join(', ');

/** Why importing target from source breaks the constraints, or undefined if it does not. */
export function violation(source, target, constraints) {
  const applicable = constraints.filter((c) => source.tags.includes(c.sourceTag));
  if (applicable.length === 0) {
    return source.tags.length === 0
      ? `${source.name} has no tags: add "nx": { "tags": [...] } to its package.json`
      : `no constraint covers ${source.name}'s tags (${list(source.tags)}), so it may import no workspace package`;
  }
  for (const c of applicable) {
    if (c.onlyDependOnLibsWithTags && !c.onlyDependOnLibsWithTags.some((t) => target.tags.includes(t))) {
      return `${source.name} (${c.sourceTag}) may import only packages tagged ${list(c.onlyDependOnLibsWithTags)}; ${target.name} has ${list(target.tags) || 'no tags'}`;
    }
    const banned = c.notDependOnLibsWithTags?.find((t) => target.tags.includes(t));
    if (banned) return `${source.name} (${c.sourceTag}) may not import packages tagged "${banned}", such as ${target.name}`;
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const moduleBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'workspace packages import each other only as their tags allow' },
    schema: [
      {
        type: 'object',
        properties: {
          constraints: { type: 'array', items: { type: 'object' } },
          knownViolations: { type: 'array', items: { type: 'object' } },
        },
        required: ['constraints'],
        additionalProperties: false,
      },
    ],
    messages: {
      forbidden: '{{why}}',
      staleKnownViolation: 'the known violation "{{imports}}" ({{reason}}) no longer occurs in this file: remove it from eslint.config.js',
    },
  },
  create(context) {
    /** @type {{ constraints: Constraint[], knownViolations?: KnownViolation[] }} */
    const { constraints, knownViolations = [] } = context.options[0];
    const file = context.filename;
    const root = findWorkspaceRoot(dirname(file));
    if (!root) return {};
    const projects = projectsUnder(root);
    const source = projectOfPath(projects, file);
    if (!source) return {}; // tools/, root configs: not a package
    const relativeFile = relative(root, file).split(sep).join('/');
    const known = knownViolations.filter((k) => k.file === relativeFile);
    const used = new Set();

    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string') return; // a computed import(): nothing to check statically
      const target = projectOfSpecifier(projects, specifier, file);
      if (!target || target === source) return;
      const why = violation(source, target, constraints);
      if (!why) return;
      const excused = known.find((k) => k.imports === target.name);
      if (excused) used.add(excused);
      else context.report({ node: node.source, messageId: 'forbidden', data: { why } });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
      'Program:exit'(program) {
        for (const k of known.filter((k) => !used.has(k))) context.report({ node: program, messageId: 'staleKnownViolation', data: k });
      },
    };
  },
};

/** The rules as an ESLint plugin: `plugins: { sluice: plugin }`, rule `sluice/module-boundaries`. */
export default { meta: { name: 'sluice-module-boundaries' }, rules: { 'module-boundaries': moduleBoundaries } };
