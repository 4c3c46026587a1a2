import { spawnSync, type ChildProcess } from 'node:child_process';
import { forget, watchContainer, watchPid } from './watchdog.js';

/**
 * Last line of defence against leftovers: whatever the launcher started and has not stopped yet is
 * killed when this process exits (also on `process.exit()` from an error path). A graceful stop
 * always goes through the handles' `stop()`; this only runs synchronously at exit, so it SIGKILLs.
 * Against SIGKILL of this process itself, each child is also handed to the watchdog (watchdog.ts).
 */
const children = new Set<ChildProcess>();
const containers = new Set<string>();
let installed = false;

function reapAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  children.clear();
  for (const id of containers) spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore', timeout: 10_000 });
  containers.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', reapAll);
}

export function trackChild(child: ChildProcess): void {
  install();
  children.add(child);
  const pid = child.pid;
  if (pid !== undefined) watchPid(pid);
  child.once('exit', () => {
    children.delete(child);
    if (pid !== undefined) forget(pid);
  });
}

export function untrackChild(child: ChildProcess): void {
  children.delete(child);
}

export function trackContainer(id: string): void {
  install();
  containers.add(id);
  watchContainer(id);
}

export function untrackContainer(id: string): void {
  containers.delete(id);
  forget(id);
}
