import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The README's `npx sluice …` commands, run as written from a fresh clone of this commit:
 * `npm install`, `npm run build`, a cluster started from the clone, then every command.
 *
 * What keeps it to about 22 s (a full `npm install` alone extracts 350 MB and took 16-17 s here):
 * - node_modules is seeded with hard links to this checkout's third-party packages (the same
 *   versions: one lock), and `npm install --offline` then does in the clone what a first install
 *   does for sluice itself: it links the workspace packages and their bins, `sluice` included,
 *   while no dist/ exists yet. Where hard links cannot be made (another file system), the seed is
 *   skipped and the install is a full one.
 * - the build is `npm run build` as written; Nx serves unchanged packages from its cache.
 * - the workload files the commands name are cut to a few requests in the clone (set
 *   `num_requests`), and the workers run ten times faster (`--worker.timeScale=10`): each `run`
 *   takes about a second instead of the workload's 30 s; what the workloads do is other tests'
 *   business, this one is about the commands.
 * - a `sluice chaos` scenario runs on its short time axis (`--short`, the README's own hint): the
 *   full 40 s timeline was a third of this file's time, and what the scenario does at full length
 *   is chaos.int-spec.ts's and shipped-scenarios.int-spec.ts's business.
 * - `--target` lines point at an endpoint the README's reader has (vLLM on :8000, or a bare
 *   worker's vLLM port): here both are the cluster's own workers' ports (`worker.http` on, at free
 *   ports), which serve vLLM's API, under the worker's model name.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const REQUESTS_PER_WORKLOAD = 6;

/** Every `npx sluice` line of the README's shell code blocks, in order (`up` is the cluster below). */
function readmeCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const [, lang, body] of markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)) {
    if (!['sh', 'bash', 'shell', ''].includes(lang ?? '')) continue;
    const lines = (body ?? '').replace(/\\\n\s*/g, ' ').split('\n');
    commands.push(...lines.map((l) => l.trim()).filter((l) => /^npx sluice\s/.test(l) && !/^npx sluice up\b/.test(l)));
  }
  return commands;
}
const COMMANDS = readmeCommands(README);

/** Hard-links a tree: files linked, folders made, symlinks copied as they are. */
function linkTree(from: string, to: string, skip: (name: string) => boolean = () => false): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (skip(entry.name)) continue;
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (entry.isDirectory()) linkTree(source, target);
    else linkSync(source, target);
  }
}

/**
 * This checkout's third-party packages, as a first `npm install` would have put them: without
 * the workspace links (@sluice/*), the bins that point into them, npm's record of the tree
 * (.package-lock.json) and any tool's cache (the other dot-entries), all of which npm must make
 * itself. False if hard links cannot be made here.
 */
function seedNodeModules(clone: string): boolean {
  const [from, into] = [join(ROOT, 'node_modules'), join(clone, 'node_modules')];
  try {
    linkTree(from, into, (name) => name === '@sluice' || name.startsWith('.'));
    linkTree(join(from, '.bin'), join(into, '.bin'), (name) => readlinkSync(join(from, '.bin', name)).includes('@sluice/'));
    return true;
  } catch (error) {
    if (!['EXDEV', 'EPERM', 'EMLINK'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    rmSync(into, { recursive: true, force: true });
    return false;
  }
}

// npm sets npm_* (the prefix among them) and INIT_CWD for whatever runs under `npm test`; left in
// place they would point the clone's npm and `npm start` back at this checkout.
const ENV = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && name !== 'INIT_CWD')),
  NX_DAEMON: 'false',
  NX_NO_CLOUD: 'true',
  NO_COLOR: '1',
};

function sh(command: string, cwd: string, timeoutMs = 60_000): SpawnSyncReturns<string> {
  return spawnSync('sh', ['-c', command], { cwd, env: ENV, encoding: 'utf8', timeout: timeoutMs });
}
/** A free port with the `count` − 1 after it free too (the worker instances' HTTP ports, one each). */
async function freePorts(count: number): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer().once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    let all = true;
    for (let i = 0; i < count && all; i++) all = await free(base + i);
    if (all) return base;
  }
  throw new Error(`no ${count} free ports in a row`);
}

const outputOf = (r: SpawnSyncReturns<string>): string => `exit ${r.status ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

describe('a fresh clone', () => {
  let clone = '';
  let cluster: ChildProcess | undefined;
  let seeded = false;
  // A README line's part → what the clone runs instead (filled as the cluster comes up).
  const placeholders = new Map<RegExp, string>([[/^(npx sluice chaos \S+)/, '$1 --short']]);

  beforeAll(async () => {
    clone = join(mkdtempSync(join(tmpdir(), 'sluice-fresh-clone-')), 'sluice');
    const cloned = spawnSync('git', ['clone', '--quiet', ROOT, clone], { encoding: 'utf8' });
    expect(cloned.status, cloned.stderr).toBe(0);
    seeded = seedNodeModules(clone);
  }, 60_000);

  afterAll(async () => {
    if (cluster?.pid && cluster.exitCode === null) {
      // The process group: npx, the CLI and the services it started; `up` stops them on SIGINT.
      const exited = new Promise((done) => cluster!.once('exit', done));
      process.kill(-cluster.pid, 'SIGINT');
      const stopped = await Promise.race([exited.then(() => true), new Promise((done) => setTimeout(() => done(false), 15_000))]);
      if (!stopped) process.kill(-cluster.pid, 'SIGKILL');
    }
    if (clone) rmSync(join(clone, '..'), { recursive: true, force: true });
  }, 30_000);

  it('installs offline without touching the lockfile, and links `sluice` before anything is built', () => {
    const install = sh('npm install --offline --no-audit --no-fund', clone, seeded ? 60_000 : 180_000);
    expect(install.status, outputOf(install)).toBe(0);
    expect(spawnSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' }).stdout).toBe('');
    expect(existsSync(join(clone, 'apps/cli/dist'))).toBe(false);
    expect(existsSync(join(clone, 'node_modules/.bin/sluice')), 'npm linked no node_modules/.bin/sluice').toBe(true);
    const early = sh('npx sluice --help', clone);
    expect(early.status).toBe(1);
    expect(early.stderr).toContain('run `npm run build` (or `npm start`)');
  }, 180_000);

  it('builds, and starts a cluster with `sluice up`', async () => {
    const build = sh('npm run build', clone, 120_000);
    expect(build.status, outputOf(build)).toBe(0);

    for (const file of new Set(COMMANDS.flatMap((c) => c.match(/examples\/workloads\/[\w.-]+\.ya?ml/g) ?? []))) {
      const doc = parseDocument(readFileSync(join(clone, file), 'utf8'));
      const n = doc.get('num_requests');
      doc.set('num_requests', typeof n === 'number' ? Math.min(n, REQUESTS_PER_WORKLOAD) : REQUESTS_PER_WORKLOAD);
      writeFileSync(join(clone, file), doc.toString());
    }

    const ports = ['gateway', 'admission', 'flowController', 'router', 'worker'].map((s) => `--${s}.port=0`);
    const workerHttp = await freePorts(4);
    const bare = `--target http://127.0.0.1:${workerHttp}`;
    placeholders.set(/--target http:\/\/127\.0\.0\.1:8000\/v1 --target-model \S+/g, `${bare}/v1`);
    placeholders.set(/--target http:\/\/127\.0\.0\.1:8100\b/g, bare);
    cluster = spawn('npx', ['sluice', 'up', '--no-demo', ...ports, '--worker.timeScale=10', '--worker.instances=4', '--worker.http.enabled=true', `--worker.http.basePort=${workerHttp}`], { cwd: clone, env: ENV, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    cluster.stderr!.on('data', (chunk: Buffer) => lines.push(chunk.toString()));
    await new Promise<void>((ready, fail) => {
      createInterface({ input: cluster!.stdout! }).on('line', (line) => {
        lines.push(line);
        // The README's gateway at its default address (8080, as `npm start` and a port-forward
        // give it) is this cluster's gateway, which runs on a free port.
        const gateway = /^sluice is up: gateway (http:\/\/\S+)/.exec(line)?.[1];
        if (gateway) placeholders.set(/--gateway http:\/\/127\.0\.0\.1:8080\b/g, `--gateway ${gateway}`);
        if (line.startsWith('sluice is up: ')) ready();
      });
      cluster!.once('exit', (code) => fail(new Error(`sluice up exited (${code}):\n${lines.join('\n')}`)));
    });

    // The README's placeholders: a live run's directory is the first run's --out, and an
    // instance id is what `sluice worker faults` lists.
    const firstRun = COMMANDS.map((c) => /--out \.sluice\/runs\/([\w.-]+)/.exec(c)?.[1]).find(Boolean);
    if (firstRun) placeholders.set(/<live run>/g, firstRun);
    const faults = sh('npx sluice worker faults --json', clone);
    expect(faults.status, outputOf(faults)).toBe(0);
    placeholders.set(/--instance ID\b/g, `--instance ${Object.keys(JSON.parse(faults.stdout) as object)[0]}`);
  }, 120_000);

  it('finds the README commands', () => {
    const verbs = new Set(COMMANDS.map((c) => c.split(/\s+/)[2]));
    expect([...verbs].sort()).toEqual(expect.arrayContaining(['admission', 'compare', 'run', 'simulate', 'worker']));
  });

  it.each(COMMANDS)('runs `%s`', (command) => {
    expect(cluster?.exitCode ?? null, 'the cluster is running').toBeNull();
    let line = command;
    for (const [pattern, value] of placeholders) line = line.replace(pattern, value);
    expect(line, 'a placeholder this test cannot fill').not.toMatch(/<[^>]*>/);
    const result = sh(line, clone);
    expect(result.status, `${line}\n${outputOf(result)}`).toBe(0);
  });
});
