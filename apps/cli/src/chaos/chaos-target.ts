import type { NatsCredentials } from '@sluice/config';
import type { ComposeFaultPort, LocalFaultPort } from '@sluice/workload';

/**
 * What a chaos run needs from the cluster it breaks: where to send load and control messages,
 * which processes there are, and the primitive operations the faults' actions run on (the ports
 * of libs/workload's chaos faults). A local cluster (child processes under the launcher's
 * supervisor) and a Compose project (containers, through the docker CLI) each implement it, so
 * the timeline, the invariants and the report never know which one ran, and what each fault does
 * is written in its own folder, not here.
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

interface ChaosCluster {
  /** `http://host:port` of the gateway. */
  readonly gatewayUrl: string;
  /** NATS as seen from here (worker and bus fault control messages). */
  readonly natsUrl: string;
  /** The `control` identity's credentials when the bus requires them (docs/security.md). */
  readonly natsCredentials: NatsCredentials | undefined;
  /** The cluster's resolved config when known (the report keeps it), else null. */
  readonly config: unknown;
  processes(): Promise<readonly ChaosProcess[]>;
  /** Releases what the target started (a local cluster stops; a compose project is left running). */
  close(): Promise<void>;
}

export interface LocalChaosTarget extends ChaosCluster, LocalFaultPort {
  readonly kind: 'local';
}

export interface ComposeChaosTarget extends ChaosCluster, ComposeFaultPort {
  readonly kind: 'compose';
}

export type ChaosTarget = LocalChaosTarget | ComposeChaosTarget;

/** A fault named a process the cluster does not have, or the target could not do what was asked. */
export class ChaosTargetError extends Error {
  override readonly name = 'ChaosTargetError';
}
