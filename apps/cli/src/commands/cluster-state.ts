import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isPidAlive } from '@sluice/launcher';

/**
 * Where a running `sluice up` tells the other commands how to reach its cluster: the embedded
 * nats-server listens on a free port, so `sluice worker faults` in another terminal could not
 * guess it. One file per repo checkout, removed when `up` stops.
 */
export interface ClusterState {
  /** The `sluice up` that wrote it. */
  readonly pid: number;
  /**
   * That process's start time (field 22 of /proc/<pid>/stat, clock ticks since boot; Linux only),
   * so a pid the kernel has handed to another process since is not taken for the launcher.
   */
  readonly pidStartTime?: string;
  readonly natsUrl: string;
  /**
   * How other commands log in as `control` when the cluster's NATS requires credentials: the
   * run's nkey seed file (mode 0600). Never a password: this file names the server, and a
   * server it names wrongly must receive nothing it could log in with (docs/security.md).
   */
  readonly natsControl?: { readonly nkeySeedFile: string };
  /** The CA other commands verify the cluster's NATS against, when `sluice up` started it with TLS (`nats.generateTls`). */
  readonly natsTlsCaFile?: string;
  readonly gatewayUrl: string;
  /** The cluster's resolved config, so `sluice run` can record what produced its report. */
  readonly config?: unknown;
  /** Each service process with its pid, rewritten whenever a restarted one is ready (a chaos run in another terminal signals them). */
  readonly processes?: readonly ClusterStateProcess[];
}

export interface ClusterStateProcess {
  /** `gateway`, `router`, …, `worker-0`, `worker-1`, … */
  readonly name: string;
  /** The service kind (`worker` for every worker process). */
  readonly service: string;
  readonly pid: number;
  /** `http://host:port` of its /readyz and /metrics. */
  readonly url: string;
  /** How often the supervisor has started it again. */
  readonly restarts: number;
}

export const clusterStateFile = (rootDir: string): string => join(rootDir, '.sluice', 'cluster.json');

/** A process's start time from /proc (Linux), or undefined where there is no /proc or no such process. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields after it start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function writeClusterState(rootDir: string, state: Omit<ClusterState, 'pidStartTime'>): void {
  const file = clusterStateFile(rootDir);
  mkdirSync(dirname(file), { recursive: true });
  const startTime = processStartTime(state.pid);
  // Mode 0600: it names where the run's credentials are.
  writeFileSync(file, `${JSON.stringify({ ...state, ...(startTime === undefined ? {} : { pidStartTime: startTime }) }, null, 2)}\n`, { mode: 0o600 });
  // A file that already existed keeps its mode: make sure of it.
  chmodSync(file, 0o600);
}

/**
 * What `.sluice/cluster.json` says: no cluster (no file, or one that cannot be read), a running
 * one, or a stale one: the `sluice up` that wrote it is gone (killed, so it could not remove it)
 * or its pid now belongs to another process.
 */
export type ClusterStateStatus =
  | { readonly kind: 'none' }
  | { readonly kind: 'running'; readonly state: ClusterState }
  | { readonly kind: 'stale'; readonly state: ClusterState };

export function inspectClusterState(rootDir: string): ClusterStateStatus {
  let state: ClusterState;
  try {
    state = JSON.parse(readFileSync(clusterStateFile(rootDir), 'utf8')) as ClusterState;
  } catch {
    return { kind: 'none' };
  }
  if (typeof state.pid !== 'number') return { kind: 'none' };
  // No such process, or another user's (EPERM): not the launcher of this checkout either way.
  if (!isPidAlive(state.pid)) return { kind: 'stale', state };
  const startTime = processStartTime(state.pid);
  if (state.pidStartTime !== undefined && startTime !== undefined && startTime !== state.pidStartTime) return { kind: 'stale', state };
  return { kind: 'running', state };
}

/** The state of a `sluice up` that is still running, or undefined (no file, a bad file, or a stale one). */
export function readClusterState(rootDir: string): ClusterState | undefined {
  const status = inspectClusterState(rootDir);
  return status.kind === 'running' ? status.state : undefined;
}

/** The directories of a run's secrets that a state names (its control credentials, its TLS CA). */
function secretDirsOf(state: ClusterState): string[] {
  return [state.natsControl?.nkeySeedFile, state.natsTlsCaFile].filter((file): file is string => typeof file === 'string').map(dirname);
}

/** What to tell a command that found a stale state: what happened and how to clean up. */
export function staleStateMessage(rootDir: string, state: ClusterState): string {
  const file = relative(process.cwd(), clusterStateFile(rootDir)) || clusterStateFile(rootDir);
  const secrets = secretDirsOf(state).filter((dir) => existsSync(dir)).map((dir) => relative(process.cwd(), dir) || dir);
  return (
    `${file} is stale: the \`sluice up\` (pid ${state.pid}) that wrote it is no longer running (it was killed before it could clean up), ` +
    `so its NATS ${state.natsUrl} and gateway ${state.gatewayUrl} are not to be trusted. ` +
    `Run \`sluice up\` again (it replaces the stale state), or remove ${[file, ...secrets].join(' and ')} by hand.`
  );
}

/**
 * Removes a stale state and the secrets it names (`sluice up` does, before it writes its own).
 * Returns the state removed, or undefined when there was none or it is not stale.
 */
export function removeStaleClusterState(rootDir: string): ClusterState | undefined {
  const status = inspectClusterState(rootDir);
  if (status.kind !== 'stale') return undefined;
  for (const dir of secretDirsOf(status.state)) {
    // Only a run's own directory under .sluice: a stale file must not make us delete elsewhere.
    if (dirname(dir) === join(rootDir, '.sluice')) rmSync(dir, { recursive: true, force: true });
  }
  rmSync(clusterStateFile(rootDir), { force: true });
  return status.state;
}

/** Removes the file if it still describes this process's cluster. */
export function removeClusterState(rootDir: string, pid = process.pid): void {
  if (readClusterState(rootDir)?.pid === pid) rmSync(clusterStateFile(rootDir), { force: true });
}
