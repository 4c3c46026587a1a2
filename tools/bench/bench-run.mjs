// What every benchmark run needs: its options (`--name value`, `--flag`) and the build it measures.
import { execFileSync } from 'node:child_process';

/** `--name value` and `--flag` from the command line. */
export function commandLine(argv = process.argv.slice(2)) {
  return {
    flag: (name) => argv.includes(`--${name}`),
    option: (name, fallback) => {
      const i = argv.indexOf(`--${name}`);
      return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
    },
  };
}

/** The commit measured, marked when apps/ or libs/ have uncommitted changes (then the figure is of no commit). */
export function buildLabel(repoRoot) {
  try {
    const sha = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: repoRoot, encoding: 'utf8' }).trim() !== '';
    return dirty ? `${sha} + uncommitted changes in apps/ or libs/` : sha;
  } catch {
    return 'unknown';
  }
}
