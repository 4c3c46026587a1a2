// `npm start [-- sluice up options]`: install and build when needed, then run `sluice up`.
// Plain Node, no dependencies: this runs before `npm install`. Keep the syntax old enough that an
// outdated Node gets as far as the version check below.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isTestFile } from './test-files.mjs';

const MIN_NODE = [22, 12];
const root = dirname(dirname(fileURLToPath(import.meta.url)));

function log(line) {
  process.stderr.write(`[sluice] ${line}\n`);
}

// --- Node version --------------------------------------------------------------------------
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
  log(`Node ${MIN_NODE.join('.')} or newer is needed; this is ${process.version} (${process.execPath}).`);
  log('Install Node 24, e.g. one of:');
  log('  nvm install 24 && nvm use 24');
  log('  npm install -g --prefix ~/.local/node24 node@24 && export PATH=~/.local/node24/bin:$PATH');
  log('  or a package from https://nodejs.org/en/download');
  process.exit(1);
}

// --- helpers --------------------------------------------------------------------------------
function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Newest modification time of any file under dir (0 if empty or missing). */
function newestIn(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (!entry.isDirectory() && isTestFile(entry.name)) continue; // not built (tools/build.mjs)
    const t = entry.isDirectory() ? newestIn(full) : (mtime(full) ?? 0);
    if (t > newest) newest = t;
  }
  return newest;
}

function subdirs(dir) {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** npm itself when run via `npm start` (npm_execpath), else `npm` on PATH. */
function npm(args) {
  const execPath = process.env.npm_execpath;
  const [cmd, cmdArgs] =
    execPath && /\.[cm]?js$/.test(execPath) ? [process.execPath, [execPath, ...args]] : ['npm', args];
  const result = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' && cmd === 'npm' });
  if (result.error) {
    log(`could not run npm ${args.join(' ')}: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) {
    log(`npm ${args.join(' ')} failed (exit code ${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
}

// --- install --------------------------------------------------------------------------------
const workspaceDirs = [...subdirs(join(root, 'apps')), ...subdirs(join(root, 'libs'))];
const installedAt = mtime(join(root, 'node_modules', '.package-lock.json'));
const manifests = [join(root, 'package.json'), ...workspaceDirs.map((d) => join(d, 'package.json'))];
const staleManifest = manifests.find((m) => (mtime(m) ?? 0) > (installedAt ?? 0));
if (!existsSync(join(root, 'node_modules')) || installedAt === undefined || staleManifest) {
  log(
    installedAt === undefined
      ? 'installing dependencies (npm install)…'
      : `${staleManifest.slice(root.length + 1)} changed since the last install: npm install…`,
  );
  npm(['install', '--no-audit', '--no-fund']);
}

// --- build ----------------------------------------------------------------------------------
/** The entry file a package's build produces (apps: dist/main.js, libs: dist/index.js), if it has sources. */
function buildOutput(dir) {
  const isApp = dir.startsWith(join(root, 'apps'));
  const [source, output] = isApp ? ['main.ts', 'main.js'] : ['index.ts', 'index.js'];
  return existsSync(join(dir, 'src', source)) ? join(dir, 'dist', output) : undefined;
}
/** Missing, or older than the newest non-test file in the package's src/. */
function isStale(output) {
  const built = mtime(output);
  return built === undefined || built < newestIn(join(dirname(dirname(output)), 'src'));
}
const outputs = workspaceDirs.map(buildOutput).filter(Boolean);
const stale = outputs.filter(isStale);
if (stale.length > 0) {
  log(`building (${stale.map((f) => f.slice(root.length + 1)).join(', ')} ${stale.length === 1 ? 'is' : 'are'} missing or stale)…`);
  npm(['run', 'build']);
  // Nx restores unchanged packages from its cache, keeping older file times (e.g. after a `touch`
  // or a branch switch); the build succeeded, so mark every output current to not rebuild on
  // every start.
  const now = new Date();
  for (const file of outputs) {
    try {
      utimesSync(file, now, now);
    } catch {
      // missing after the build: the CLI check below or the cluster harness reports it
    }
  }
}

// --- sluice up ------------------------------------------------------------------------------
const cli = join(root, 'apps', 'cli', 'dist', 'main.js');
if (!existsSync(cli)) {
  log(`${cli} is missing after the build; run \`npm run build\` and check its output.`);
  process.exit(1);
}
// npm runs scripts in the repo root; run sluice where `npm start` was typed, so a relative
// `--config FILE` means the file the user sees.
const cwd = process.env.INIT_CWD && existsSync(process.env.INIT_CWD) ? process.env.INIT_CWD : process.cwd();
const child = spawn(process.execPath, [cli, 'up', ...process.argv.slice(2)], { cwd, stdio: 'inherit' });

// A terminal Ctrl-C reaches the child anyway (same process group); forwarding covers `kill <pid>`.
// The CLI treats repeated signals as one stop request.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on('error', (error) => {
  log(`could not start ${cli}: ${error.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (constants.signals[signal] ?? 1));
});
