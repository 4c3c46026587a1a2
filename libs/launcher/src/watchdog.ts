import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The launcher's children must not outlive it, even when it is killed with SIGKILL, which no
 * handler of its own can catch. Linux offers PR_SET_PDEATHSIG for that, but Node cannot call
 * prctl, and nats-server is a Go binary we do not wrap. So the launcher starts one small watchdog
 * process of its own (a node script given with `-e`, so nothing has to be found on disk), in its
 * own session, and holds the write end of its stdin. The kernel closes that pipe however the
 * launcher ends; the watchdog reads end-of-file and then stops what it was told about:
 *
 * - `pid <n>`: a child (a service, a nats-server). SIGTERM, and SIGKILL after a grace period,
 *   unless it is already gone; its start time (/proc/<n>/stat on Linux) is remembered and checked
 *   first, so a pid the kernel reused meanwhile is never signalled.
 * - `container <id>`: `docker rm -f`.
 * - `path <dir>`: a run's secrets (the per-run password files, the TLS keys): removed.
 * - `forget <what>` undoes one of these once the launcher has cleaned it up itself.
 *
 * On a clean stop the launcher has already stopped everything and sends nothing more: the
 * watchdog reads end-of-file as the launcher exits, finds nothing left, and exits too.
 * It cannot help when it is killed itself along with the launcher; `sluice up` then recognises
 * the stale state by the launcher's pid (apps/cli/src/commands/cluster-state.ts).
 */
const WATCHDOG_SOURCE = String.raw`
const { readFileSync, rmSync } = require('node:fs');
const { spawnSync } = require('node:child_process');
const GRACE_MS = Number(process.argv[1] || 3000);
const pids = new Map();
const containers = new Set();
const paths = new Set();
const startOf = (pid) => { try { const stat = readFileSync('/proc/' + pid + '/stat', 'utf8'); return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]; } catch { return undefined; } };
const same = (pid, start) => { try { process.kill(pid, 0); } catch { return false; } return start === undefined || startOf(pid) === start; };
const signal = (pid, sig) => { try { process.kill(pid, sig); } catch {} };
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  const lines = buffer.split('\n');
  buffer = lines.pop();
  for (const line of lines) {
    const [verb, ...rest] = line.split(' ');
    const value = rest.join(' ');
    if (verb === 'pid') pids.set(Number(value), startOf(Number(value)));
    else if (verb === 'container') containers.add(value);
    else if (verb === 'path') paths.add(value);
    else if (verb === 'forget') { pids.delete(Number(value)); containers.delete(value); paths.delete(value); }
  }
});
process.stdin.on('end', () => {
  const alive = () => [...pids].filter(([pid, start]) => same(pid, start));
  for (const [pid] of alive()) { signal(pid, 'SIGTERM'); signal(pid, 'SIGCONT'); }
  for (const id of containers) spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore', timeout: 10000 });
  for (const path of paths) rmSync(path, { recursive: true, force: true });
  const deadline = Date.now() + GRACE_MS;
  const check = () => {
    const left = alive();
    if (left.length === 0) process.exit(0);
    if (Date.now() < deadline) return void setTimeout(check, 50);
    for (const [pid] of left) signal(pid, 'SIGKILL');
    process.exit(0);
  };
  check();
});
`;

/** How long the watchdog gives the orphans to stop on SIGTERM before SIGKILL. */
const WATCHDOG_GRACE_MS = 3_000;

/** The watchdog's arguments to node (`-e` with its source, then its grace period): tests run it with a shorter one. */
export function watchdogArgs(graceMs = WATCHDOG_GRACE_MS): string[] {
  return ['-e', WATCHDOG_SOURCE, String(graceMs)];
}

let watchdog: ChildProcess | undefined;

function send(line: string): void {
  watchdog ??= startWatchdog();
  const stdin = watchdog.stdin;
  if (!stdin || stdin.destroyed) return;
  stdin.write(`${line}\n`);
}

function startWatchdog(): ChildProcess {
  const child = spawn(process.execPath, watchdogArgs(), {
    // Its own session: a Ctrl-C or a hang-up of the terminal is for the launcher, not for it.
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  // A watchdog that failed to start is no reason to stop the launcher: the exit reaper still runs.
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Neither the watchdog nor the pipe to it keeps the launcher's event loop alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}

/** The watchdog's pid (started on first use), for tests that check it ends. */
export function watchdogPid(): number | undefined {
  return watchdog?.pid;
}

/** Stop this process when the launcher dies. */
export function watchPid(pid: number): void {
  send(`pid ${pid}`);
}

export function watchContainer(id: string): void {
  send(`container ${id}`);
}

/** Remove this directory (a run's secrets) when the launcher dies. */
export function watchPath(path: string): void {
  send(`path ${path}`);
}

/** The launcher stopped or removed it itself. */
export function forget(what: number | string): void {
  if (watchdog) send(`forget ${what}`);
}
