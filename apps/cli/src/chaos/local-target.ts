import type { NatsCredentials } from '@sluice/config';
import { FREE_PORT_ARGS, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import type { FaultAction } from '@sluice/workload';
import { ChaosTargetError, type ChaosNatsNode, type ChaosProcess, type ChaosTarget, type ProcessAction } from './chaos-target.js';
import { varzConnections } from './nats-nodes.js';

/** A process the supervisor started again: which one, after how long. */
export interface RestartNotice {
  readonly name: string;
  readonly delayMs: number;
}

export interface LocalTargetOptions {
  readonly rootDir: string;
  /** The scenario's cluster flags, then the command line's: the later flag wins. */
  readonly configArgs: readonly string[];
  readonly onRestart?: (notice: RestartNotice) => void;
}

const SIGNALS = { kill: 'SIGKILL', terminate: 'SIGTERM', pause: 'SIGSTOP', resume: 'SIGCONT' } as const;

/**
 * A cluster of its own for the run, on free ports (a `sluice up` beside it is left alone) unless
 * the flags choose ports, with the launcher's supervisor restarting what a fault kills.
 */
export async function startLocalTarget(options: LocalTargetOptions): Promise<ChaosTarget> {
  const cluster = await startLocalCluster({
    rootDir: options.rootDir,
    configArgs: [...FREE_PORT_ARGS, ...options.configArgs],
    onRestart: (event) => options.onRestart?.({ name: event.name, delayMs: event.delayMs }),
  });
  return new LocalTarget(cluster);
}

class LocalTarget implements ChaosTarget {
  readonly kind = 'local' as const;
  /** NATS nodes a fault stopped and has not started again. */
  private readonly stoppedNodes = new Set<number>();

  constructor(private readonly cluster: LocalCluster) {}

  get gatewayUrl(): string {
    return this.cluster.gatewayUrl;
  }

  get natsUrl(): string {
    return this.cluster.natsUrl;
  }

  get natsCredentials(): NatsCredentials | undefined {
    return this.cluster.natsIdentity('control');
  }

  get config(): unknown {
    return this.cluster.config;
  }

  unsupported(action: FaultAction): Promise<string | undefined> {
    return Promise.resolve(this.whyNot(action));
  }

  private whyNot(action: FaultAction): string | undefined {
    const clustered = this.cluster.natsNodes().length > 0;
    if (action === 'disconnect') return 'disconnect takes a container off its network: run the scenario with --compose';
    if ((action === 'restart-nats' || action === 'stop-nats-node') && this.cluster.natsKind === 'external') return 'NATS is external (NATS_URL / nats.url): this run cannot stop it';
    if (action === 'restart-nats' && clustered) return 'NATS runs as a cluster (nats.clusterSize): restart one node with stop-nats-node and forMs';
    if (action === 'stop-nats-node' && !clustered) return 'NATS runs as one server: add `nats.clusterSize: 3` to the scenario\'s cluster (or --nats.clusterSize=3)';
    return undefined;
  }

  processes(): Promise<readonly ChaosProcess[]> {
    return Promise.resolve(this.cluster.processes().map((p) => ({ name: p.name, service: p.service, id: String(p.pid), url: p.url, restarts: p.restarts })));
  }

  act(name: string, action: ProcessAction): Promise<string> {
    if (action === 'disconnect' || action === 'reconnect') return Promise.reject(new ChaosTargetError(this.whyNot('disconnect')));
    const signal = SIGNALS[action];
    try {
      return Promise.resolve(`${signal} pid ${this.cluster.signal(name, signal)}`);
    } catch (error) {
      // An unknown name: the launcher's message lists the processes there are.
      return Promise.reject(new ChaosTargetError((error as Error).message));
    }
  }

  restartNats(downMs: number): Promise<void> {
    return this.cluster.restartNats(downMs);
  }

  async natsNodes(): Promise<readonly ChaosNatsNode[]> {
    return Promise.all(
      this.cluster.natsNodes().map(async (node, index) => ({
        index,
        name: `nats-${index}`,
        running: !this.stoppedNodes.has(index),
        connections: this.stoppedNodes.has(index) ? undefined : await varzConnections(node.monitorUrl),
      })),
    );
  }

  async stopNatsNode(index: number): Promise<string> {
    const node = this.cluster.natsNodes()[index];
    await this.cluster.stopNatsNode(index);
    this.stoppedNodes.add(index);
    return `nats-server pid ${node?.pid ?? '?'} stopped`;
  }

  async startNatsNode(index: number): Promise<string> {
    await this.cluster.startNatsNode(index);
    this.stoppedNodes.delete(index);
    return `nats-server pid ${this.cluster.natsNodes()[index]?.pid ?? '?'} started on ${this.cluster.natsNodes()[index]?.url ?? '?'}`;
  }

  close(): Promise<void> {
    return this.cluster.stop();
  }
}
