import type { NatsCredentials } from '@sluice/config';
import { setTimeout as sleep } from 'node:timers/promises';
import { docker, type DockerResult } from '@sluice/launcher';
import type { FaultAction } from '@sluice/workload';
import { ChaosTargetError, type ChaosNatsNode, type ChaosProcess, type ChaosTarget, type ProcessAction } from './chaos-target.js';
import { inspectNatsNodeArgs, listContainersArgs, natsNodeIndex, parseContainers, parseNatsNodeState, parseNetworks, type ComposeContainer } from './compose-containers.js';
import { varzConnections } from './nats-nodes.js';

export interface ComposeTargetOptions {
  readonly project: string;
  readonly gatewayUrl: string;
  readonly natsUrl: string;
  /** The `control` identity's credentials for the project's NATS (from the config's nats.user / passwordFile). */
  readonly natsCredentials?: NatsCredentials;
  /** The docker CLI (tests pass a recorder). */
  readonly docker?: (args: readonly string[]) => Promise<DockerResult>;
}

/**
 * `docker kill` marks a container as stopped by hand, so the engine's restart policy (the project
 * has `unless-stopped`) leaves it down; the target starts it again after this long, as the local
 * supervisor would. (Starting a container the engine already started again is a no-op.)
 */
const RESTART_DELAY_MS = 1_000;

/**
 * A running `docker compose up` as a chaos target: every fault is a docker CLI call on a
 * container of the project (found by its Compose labels). Only the gateway's /metrics is
 * published to the host, so the stages' books cannot be read here.
 */
export class ComposeTarget implements ChaosTarget {
  readonly kind = 'compose' as const;
  readonly config = null;
  private readonly restarts = new Map<string, number>();
  /** Restarts in progress (a killed container waits to exit first): close() lets them finish. */
  private readonly pending = new Set<Promise<void>>();
  private readonly detached = new Map<string, { network: string; aliases: readonly string[] }[]>();
  private readonly run: (args: readonly string[]) => Promise<DockerResult>;

  constructor(private readonly options: ComposeTargetOptions) {
    this.run = options.docker ?? ((args) => docker(args));
  }

  get gatewayUrl(): string {
    return this.options.gatewayUrl;
  }

  get natsUrl(): string {
    return this.options.natsUrl;
  }

  get natsCredentials(): NatsCredentials | undefined {
    return this.options.natsCredentials;
  }

  async unsupported(action: FaultAction): Promise<string | undefined> {
    if (action !== 'stop-nats-node') return undefined;
    const nodes = (await this.containers()).filter((c) => natsNodeIndex(c.service) !== undefined);
    if (nodes.length > 1) return undefined;
    return `compose project "${this.options.project}" runs ${nodes.length === 0 ? 'no NATS container (is it up?)' : 'one NATS server'}: start it on a NATS cluster with -f docker-compose.yml -f docker-compose.nats-cluster.yml`;
  }

  async processes(): Promise<readonly ChaosProcess[]> {
    return (await this.containers())
      .filter((c) => natsNodeIndex(c.service) === undefined)
      .map((c) => ({ name: c.name, service: c.service, id: c.id.slice(0, 12), url: c.name === 'gateway' ? this.gatewayUrl : undefined, restarts: this.restarts.get(c.name) ?? 0 }));
  }

  async act(name: string, action: ProcessAction): Promise<string> {
    const container = await this.container(name);
    const id = container.id;
    switch (action) {
      case 'kill':
      case 'terminate': {
        await this.docker(action === 'kill' ? ['kill', id] : ['kill', '--signal', 'TERM', id]);
        this.track(this.startAgain(container));
        return `docker kill${action === 'terminate' ? ' --signal TERM' : ''} ${id.slice(0, 12)}`;
      }
      case 'pause':
      case 'resume':
        await this.docker([action === 'pause' ? 'pause' : 'unpause', id]);
        return `docker ${action === 'pause' ? 'pause' : 'unpause'} ${id.slice(0, 12)}`;
      case 'disconnect': {
        const networks = parseNetworks((await this.docker(['inspect', '--format', '{{json .NetworkSettings.Networks}}', id])).stdout);
        for (const { network } of networks) await this.docker(['network', 'disconnect', network, id]);
        this.detached.set(name, networks);
        return `docker network disconnect ${networks.map((n) => n.network).join(', ')} ${id.slice(0, 12)}`;
      }
      case 'reconnect': {
        const networks = this.detached.get(name) ?? [];
        // The service name is the alias other containers reach it by; it must come back with it.
        for (const { network, aliases } of networks) {
          await this.docker(['network', 'connect', ...[...new Set([container.service, ...aliases])].flatMap((a) => ['--alias', a]), network, id]);
        }
        this.detached.delete(name);
        return `docker network connect ${networks.map((n) => n.network).join(', ')} ${id.slice(0, 12)}`;
      }
    }
  }

  async restartNats(downMs: number): Promise<void> {
    const nats = await this.container('nats');
    await this.docker(['stop', '--time', '0', nats.id]);
    await sleep(downMs);
    await this.docker(['start', nats.id]);
  }

  async natsNodes(): Promise<readonly ChaosNatsNode[]> {
    const nodes = await this.natsContainers();
    // One server is no cluster: there is no other node to move to.
    if (nodes.length < 2) return [];
    return Promise.all(
      nodes.map(async ({ index, container }) => {
        const state = parseNatsNodeState((await this.docker(inspectNatsNodeArgs(container.id))).stdout);
        return { index, name: `nats-${index}`, running: state.running, connections: state.running ? await varzConnections(state.monitorUrl) : undefined };
      }),
    );
  }

  /** SIGKILL, as a node that crashes or whose host goes; the project gives NATS no restart policy, so it stays down. */
  async stopNatsNode(index: number): Promise<string> {
    const { container } = await this.natsContainer(index);
    await this.docker(['kill', container.id]);
    return `docker kill ${container.id.slice(0, 12)} (${container.service})`;
  }

  async startNatsNode(index: number): Promise<string> {
    const { container } = await this.natsContainer(index);
    await this.docker(['start', container.id]);
    return `docker start ${container.id.slice(0, 12)} (${container.service})`;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async startAgain(container: ComposeContainer): Promise<void> {
    await this.run(['wait', container.id]);
    await sleep(RESTART_DELAY_MS);
    await this.docker(['start', container.id]);
    this.restarts.set(container.name, (this.restarts.get(container.name) ?? 0) + 1);
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async containers(): Promise<ComposeContainer[]> {
    return parseContainers((await this.docker(listContainersArgs(this.options.project))).stdout);
  }

  private async natsContainers(): Promise<{ index: number; container: ComposeContainer }[]> {
    return (await this.containers())
      .map((container) => ({ index: natsNodeIndex(container.service), container }))
      .filter((n): n is { index: number; container: ComposeContainer } => n.index !== undefined)
      .sort((a, b) => a.index - b.index);
  }

  private async natsContainer(index: number): Promise<{ index: number; container: ComposeContainer }> {
    const nodes = await this.natsContainers();
    const found = nodes.find((n) => n.index === index);
    if (!found) throw new ChaosTargetError(`compose project "${this.options.project}" has no NATS node ${index} (it has ${nodes.map((n) => n.container.service).join(', ') || 'none'})`);
    return found;
  }

  private async container(name: string): Promise<ComposeContainer> {
    const all = await this.containers();
    const found = all.find((c) => c.name === name);
    if (!found) {
      throw new ChaosTargetError(
        all.length === 0
          ? `compose project "${this.options.project}" has no containers: is it up (\`docker compose up -d\`), or is --compose-project right?`
          : `compose project "${this.options.project}" has no container "${name}" (it has ${all.map((c) => c.name).join(', ')})`,
      );
    }
    return found;
  }

  private async docker(args: readonly string[]): Promise<DockerResult> {
    const result = await this.run(args);
    if (result.code !== 0) throw new ChaosTargetError(`docker ${args.join(' ')} failed: ${result.stderr.trim() || `exit code ${result.code}`}`);
    return result;
  }
}
