import type { NatsCredentials } from '@sluice/config';
import { FREE_PORT_ARGS, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import type { ChaosNatsNode, LocalNats, NatsServerProcess, ProcessSignal } from '@sluice/workload';
import { ChaosTargetError, type ChaosProcess, type ChaosTarget, type LocalChaosTarget } from './chaos-target.js';
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

class LocalTarget implements LocalChaosTarget {
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

  get nats(): LocalNats {
    if (this.cluster.natsKind === 'external') return 'external';
    return this.cluster.natsNodes().length > 0 ? 'cluster' : 'server';
  }

  processes(): Promise<readonly ChaosProcess[]> {
    return Promise.resolve(this.cluster.processes().map((p) => ({ name: p.name, service: p.service, id: String(p.pid), url: p.url, restarts: p.restarts })));
  }

  signal(process: string, signal: ProcessSignal): Promise<number> {
    try {
      return Promise.resolve(this.cluster.signal(process, signal));
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

  async stopNatsNode(index: number): Promise<NatsServerProcess> {
    const node = this.cluster.natsNodes()[index];
    await this.cluster.stopNatsNode(index);
    this.stoppedNodes.add(index);
    return { pid: node?.pid, url: node?.url };
  }

  async startNatsNode(index: number): Promise<NatsServerProcess> {
    await this.cluster.startNatsNode(index);
    this.stoppedNodes.delete(index);
    const node = this.cluster.natsNodes()[index];
    return { pid: node?.pid, url: node?.url };
  }

  close(): Promise<void> {
    return this.cluster.stop();
  }
}
