import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a running `sluice up` tells the other commands how to reach its cluster: the embedded
 * nats-server listens on a free port, so `sluice worker faults` in another terminal could not
 * guess it. One file per repo checkout, removed when `up` stops.
 */
export interface ClusterState {
  readonly pid: number;
  readonly natsUrl: string;
  /** The `control` identity other commands ask as, when the cluster's NATS requires credentials: its user and password file (mode 0600). */
  readonly natsControl?: { readonly user: string; readonly passwordFile: string };
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

export function writeClusterState(rootDir: string, state: ClusterState): void {
  const file = clusterStateFile(rootDir);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}

/** The state of a `sluice up` that is still running, or undefined (no file, bad file, or a dead pid). */
export function readClusterState(rootDir: string): ClusterState | undefined {
  let state: ClusterState;
  try {
    state = JSON.parse(readFileSync(clusterStateFile(rootDir), 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
  try {
    process.kill(state.pid, 0);
  } catch {
    return undefined;
  }
  return state;
}

/** Removes the file if it still describes this process's cluster. */
export function removeClusterState(rootDir: string, pid = process.pid): void {
  if (readClusterState(rootDir)?.pid === pid) rmSync(clusterStateFile(rootDir), { force: true });
}
