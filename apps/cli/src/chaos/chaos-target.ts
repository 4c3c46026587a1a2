import type { NatsCredentials } from '@sluice/config';
import type { FaultAction } from '@sluice/workload';

/**
 * What a chaos run needs from the cluster it breaks: where to send load and control messages,
 * which processes there are, and how to hurt them. A local cluster (child processes under the
 * launcher's supervisor) and a Compose project (containers, through the docker CLI) each
 * implement it, so the timeline, the invariants and the report never know which one ran.
 */

/** One process (or container) of the cluster, as a fault names it. */
export interface ChaosProcess {
  /** `gateway`, `admission`, `flow-controller`, `router`, `worker-0`, `worker-1`, … */
  readonly name: string;
  /** The service it runs (`worker` for every worker process). */
  readonly service: string;
  /** The OS process id (local) or the container id (compose); a restart changes it locally. */
  readonly id: string;
  /** `http://host:port` of its /metrics, when the host can reach it (compose publishes only the gateway's). */
  readonly url: string | undefined;
  /** How often it was started again since the cluster came up. */
  readonly restarts: number;
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

/** What can be done to one process; `resume` and `reconnect` undo `pause` and `disconnect`. */
export type ProcessAction = 'kill' | 'terminate' | 'pause' | 'resume' | 'disconnect' | 'reconnect';

export interface ChaosTarget {
  readonly kind: 'local' | 'compose';
  /** `http://host:port` of the gateway. */
  readonly gatewayUrl: string;
  /** NATS as seen from here (worker and bus fault control messages). */
  readonly natsUrl: string;
  /** The `control` identity's credentials when the bus requires them (docs/security.md). */
  readonly natsCredentials: NatsCredentials | undefined;
  /** The cluster's resolved config when known (the report keeps it), else null. */
  readonly config: unknown;
  /** Why this target cannot do a fault's action, or undefined when it can. Checked before the run starts. */
  unsupported(action: FaultAction): Promise<string | undefined>;
  processes(): Promise<readonly ChaosProcess[]>;
  /** Does `action` to the process named `name`; resolves to what was done (e.g. `SIGKILL pid 4711`). */
  act(name: string, action: ProcessAction): Promise<string>;
  /** Stops NATS and starts it again on the same address `downMs` later; resolves once it answers. */
  restartNats(downMs: number): Promise<void>;
  /** The nodes of a NATS cluster, in order, with their connection counts now; empty when NATS is one server. */
  natsNodes(): Promise<readonly ChaosNatsNode[]>;
  /** Stops node `index` of the NATS cluster (a lost node); resolves to what was done. */
  stopNatsNode(index: number): Promise<string>;
  /** Starts a stopped node again on its address; resolves to what was done once it was started. */
  startNatsNode(index: number): Promise<string>;
  /** Releases what the target started (a local cluster stops; a compose project is left running). */
  close(): Promise<void>;
}

/** A fault named a process the cluster does not have, or the target cannot do what was asked. */
export class ChaosTargetError extends Error {
  override readonly name = 'ChaosTargetError';
}

/** `worker` is the first worker process, as the scenario schema says. */
export function processName(target: string): string {
  return target === 'worker' ? 'worker-0' : target;
}
