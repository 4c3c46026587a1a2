import type { BusFaultRule, SetWorkerFaults } from '@sluice/contracts';

/**
 * The ports a fault's live actions are written against. Each live target implements one with its
 * primitive operations (the CLI's local cluster signals processes and restarts NATS; its compose
 * target calls the docker CLI), so what a fault *does* lives in the fault's folder and a target
 * only knows how to touch its processes. Every method resolves once the operation is done and
 * rejects with a message a report can show.
 */

/**
 * The faults injected by message rather than by signal, alike on every live target: worker fault
 * knobs (every worker process answers `control.worker.set-faults`) and bus fault rules (every
 * process answers `control.bus.set|clear` for what it sends). Each resolves to what was done.
 */
export interface FaultControls {
  /** Every worker instance's id, sorted. */
  workerInstances(): Promise<string[]>;
  setWorkerFaults(request: SetWorkerFaults): Promise<string>;
  setBusFault(rule: BusFaultRule): Promise<string>;
  clearBusFault(subject: string): Promise<string>;
}

/** One node of the cluster's NATS when NATS runs as a cluster, as a target sees it. */
export interface ChaosNatsNode {
  readonly index: number;
  /** `nats-0`, `nats-1`, … (the nodes' server names). */
  readonly name: string;
  readonly running: boolean;
  /** Client connections, from the node's monitoring endpoint (`/varz`); undefined when it could not be read. */
  readonly connections: number | undefined;
}

export type ProcessSignal = 'SIGKILL' | 'SIGTERM' | 'SIGSTOP' | 'SIGCONT';

/** How a local cluster's NATS runs: one server it started, a cluster of servers it started, or a server it did not start. */
export type LocalNats = 'server' | 'cluster' | 'external';

/** Why no fault can stop a NATS the run did not start. */
export const EXTERNAL_NATS = 'NATS is external (NATS_URL / nats.url): this run cannot stop it';

/** A nats-server process of the local cluster, as it was stopped or started. */
export interface NatsServerProcess {
  readonly pid: number | undefined;
  readonly url: string | undefined;
}

/** A local cluster: child processes under the launcher's supervisor, which restarts one that exits. */
export interface LocalFaultPort {
  readonly nats: LocalNats;
  /** Sends `signal` to the process named (`worker-1`); resolves to its pid, rejects naming the processes there are. */
  signal(process: string, signal: ProcessSignal): Promise<number>;
  /** Stops NATS and starts it again on the same address `downMs` later; resolves once it answers. */
  restartNats(downMs: number): Promise<void>;
  /** The nodes of the NATS cluster, in order, with their connection counts now. */
  natsNodes(): Promise<readonly ChaosNatsNode[]>;
  /** Stops node `index` (a lost node). */
  stopNatsNode(index: number): Promise<NatsServerProcess>;
  /** Starts a stopped node again on its address. */
  startNatsNode(index: number): Promise<NatsServerProcess>;
}

/** A container of a Compose project, as a fault reaches it. */
export interface ComposeContainerRef {
  readonly id: string;
  /** `gateway`, `router`, `worker-0`, …, `nats`. */
  readonly name: string;
  readonly service: string;
}

/** A container id as docker prints it short, for the report. */
export function shortId(container: ComposeContainerRef): string {
  return container.id.slice(0, 12);
}

/** A running `docker compose up`: every fault is a docker CLI call on one of its containers. */
export interface ComposeFaultPort {
  readonly project: string;
  /** The container of a process or service by name (`worker-1`, `nats`); rejects naming the ones there are. */
  container(name: string): Promise<ComposeContainerRef>;
  /** Runs the docker CLI; resolves to its stdout, rejects with its stderr on a non-zero exit. */
  docker(args: readonly string[]): Promise<string>;
  /**
   * Starts a container a fault killed again once it has exited, in the background, as the local
   * supervisor would (`docker kill` counts as stopped by hand, so the restart policy leaves it down).
   */
  startAgainWhenExited(container: ComposeContainerRef): void;
  /** Waits `ms` on the run's clock. */
  sleep(ms: number): Promise<void>;
  /** How many NATS servers the project runs (0 when it is not up). */
  natsServerCount(): Promise<number>;
  /** The nodes of the project's NATS cluster, in order, with their connection counts now; empty with one server. */
  natsNodes(): Promise<readonly ChaosNatsNode[]>;
  /** The container of NATS node `index` (`nats` is node 0, then `nats-1`, …). */
  natsNodeContainer(index: number): Promise<ComposeContainerRef>;
}

/** A live target as a fault's actions see it: which kind it is, so the fault's action for that kind runs on it. */
export type LiveTarget = ({ readonly kind: 'local' } & LocalFaultPort) | ({ readonly kind: 'compose' } & ComposeFaultPort);
