import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readProjects } from './module-boundaries.mjs';

/**
 * `npm ci` (the Dockerfile's, a user's on another OS) refuses a lockfile that lacks any optional
 * platform package another package lists, e.g. "Missing: @swc/core-darwin-arm64@ from lock file",
 * although an install on Linux never needs it. These checks fail here, on Linux, when that
 * happens.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  os?: string[];
  cpu?: string[];
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** The lock key a dependency of `from` resolves to, the way Node looks upward through node_modules. */
function resolveInLock(from: string, name: string): string | undefined {
  for (let dir = from; ; ) {
    const key = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent < 0 ? '' : dir.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('lists every optional dependency of every package, with its version and integrity', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
        checked++;
        const found = resolveInLock(key, name);
        const dep = found ? lock.packages[found] : undefined;
        if (!dep) problems.push(`${name}@${range} (optional dependency of ${key}) is missing`);
        else if (!dep.version || !dep.integrity) problems.push(`${found} has no ${dep.version ? 'integrity' : 'version'}`);
        // Platform builds are pinned to their package's own version; a range means nothing to check.
        else if (/^\d+\.\d+\.\d+$/.test(range) && dep.version !== range) problems.push(`${found} is ${dep.version}, ${key} wants ${range}`);
      }
    }
    expect(problems).toEqual([]);
    // @swc/core and nx alone list 22 platform packages; fewer means the walk above saw nothing.
    expect(checked).toBeGreaterThanOrEqual(22);
  });

  it('is pinned, in package.json, for each direct dependency that ships platform builds', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const direct = { ...manifest.dependencies, ...manifest.devDependencies };
    // A range would let a fresh `npm install` (no lock, or `npm update`) take a release whose
    // platform packages are not all published yet.
    const native = Object.keys(direct).filter((name) =>
      Object.keys(lock.packages[`node_modules/${name}`]?.optionalDependencies ?? {}).some((dep) => lock.packages[resolveInLock(`node_modules/${name}`, dep) ?? '']?.os),
    );
    expect(native).toEqual(expect.arrayContaining(['@swc/core', 'nx']));
    expect(Object.fromEntries(native.map((name) => [name, direct[name]]))).toEqual(Object.fromEntries(native.map((name) => [name, lock.packages[`node_modules/${name}`]?.version])));
  });

  it('is accepted by `npm ci` as it stands, with no network and an empty cache', () => {
    // A copy of the manifests alone: npm ci compares package.json (root and workspaces) with the
    // lock before it fetches anything, and --dry-run stops it there. The empty cache makes sure
    // nothing on this machine stands in for the registry.
    const copy = mkdtempSync(join(tmpdir(), 'sluice-lockfile-'));
    try {
      const files = ['package.json', 'package-lock.json', '.npmrc', ...readProjects(ROOT).map((p) => join(relative(ROOT, p.root), 'package.json'))];
      for (const file of files.filter((f) => existsSync(join(ROOT, f)))) {
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        copyFileSync(join(ROOT, file), join(copy, file));
      }
      // `npm test` runs this under npm, whose npm_* variables (the prefix among them) would point
      // the inner npm back at this checkout.
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
      const npm = spawnSync('npm', ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', `--cache=${join(copy, '.npm-cache')}`], { cwd: copy, env, encoding: 'utf8' });
      // npm's reason, without the usage text it prints after a refusal.
      const lines = npm.stderr.split('\n');
      const usage = lines.indexOf('npm error Clean install a project');
      let refusal = lines.slice(0, usage < 0 ? undefined : usage).filter((line) => /^npm error \S/.test(line)).join('\n');
      if (refusal.includes('ENOTCACHED')) {
        refusal += '\n(npm had to ask the registry: package.json wants something package-lock.json does not pin; run `npm install` and commit the lock)';
      }
      expect(npm.error).toBeUndefined();
      expect(refusal || `npm ci exited ${npm.status}`, refusal).toBe('npm ci exited 0');
      expect(npm.stdout).toMatch(/added \d+ packages/);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
