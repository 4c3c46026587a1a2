import { FREE_PORT_ARGS, startLocalCluster, type LocalCluster } from '@sluice/launcher';
import type { FaultAction } from '@sluice/workload';
import { ChaosTargetError, type ChaosProcess, type ChaosTarget, type ProcessAction } from './chaos-target.js';

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

  constructor(private readonly cluster: LocalCluster) {}

  get gatewayUrl(): string {
    return this.cluster.gatewayUrl;
  }

  get natsUrl(): string {
    return this.cluster.natsUrl;
  }

  get config(): unknown {
    return this.cluster.config;
  }

  unsupported(action: FaultAction): string | undefined {
    if (action === 'disconnect') return 'disconnect takes a container off its network: run the scenario with --compose';
    if (action === 'restart-nats' && this.cluster.natsKind === 'external') return 'NATS is external (NATS_URL / nats.url): this run cannot restart it';
    return undefined;
  }

  processes(): Promise<readonly ChaosProcess[]> {
    return Promise.resolve(this.cluster.processes().map((p) => ({ name: p.name, service: p.service, id: String(p.pid), url: p.url, restarts: p.restarts })));
  }

  act(name: string, action: ProcessAction): Promise<string> {
    if (action === 'disconnect' || action === 'reconnect') return Promise.reject(new ChaosTargetError(this.unsupported('disconnect')));
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

  close(): Promise<void> {
    return this.cluster.stop();
  }
}
