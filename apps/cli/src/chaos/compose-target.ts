import type { NatsCredentials } from '@sluice/config';
import { setTimeout as sleep } from 'node:timers/promises';
import { docker, type DockerResult } from '@sluice/launcher';
import type { ChaosNatsNode } from '@sluice/workload';
import { ChaosTargetError, type ChaosProcess, type ComposeChaosTarget } from './chaos-target.js';
import { inspectNatsNodeArgs, listContainersArgs, natsNodeIndex, parseContainers, parseNatsNodeState, type ComposeContainer } from './compose-containers.js';
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
 * container of the project (found by its Compose labels); the faults' compose actions say which.
 * Only the gateway's /metrics is published to the host, so the stages' books cannot be read here.
 */
export class ComposeTarget implements ComposeChaosTarget {
  readonly kind = 'compose' as const;
  readonly config = null;
  private readonly restarts = new Map<string, number>();
  /** Restarts in progress (a killed container waits to exit first): close() lets them finish. */
  private readonly pending = new Set<Promise<void>>();
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

  get project(): string {
    return this.options.project;
  }

  async processes(): Promise<readonly ChaosProcess[]> {
    return (await this.containers())
      .filter((c) => natsNodeIndex(c.service) === undefined)
      .map((c) => ({ name: c.name, service: c.service, id: c.id.slice(0, 12), url: c.name === 'gateway' ? this.gatewayUrl : undefined, restarts: this.restarts.get(c.name) ?? 0 }));
  }

  async container(name: string): Promise<ComposeContainer> {
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

  async docker(args: readonly string[]): Promise<string> {
    return (await this.dockerOk(args)).stdout;
  }

  startAgainWhenExited(container: ComposeContainer): void {
    this.track(this.startAgain(container));
  }

  sleep(ms: number): Promise<void> {
    return sleep(ms);
  }

  async natsServerCount(): Promise<number> {
    return (await this.natsContainers()).length;
  }

  async natsNodes(): Promise<readonly ChaosNatsNode[]> {
    const nodes = await this.natsContainers();
    // One server is no cluster: there is no other node to move to.
    if (nodes.length < 2) return [];
    return Promise.all(
      nodes.map(async ({ index, container }) => {
        const state = parseNatsNodeState(await this.docker(inspectNatsNodeArgs(container.id)));
        return { index, name: `nats-${index}`, running: state.running, connections: state.running ? await varzConnections(state.monitorUrl) : undefined };
      }),
    );
  }

  async natsNodeContainer(index: number): Promise<ComposeContainer> {
    const nodes = await this.natsContainers();
    const found = nodes.find((n) => n.index === index);
    if (!found) throw new ChaosTargetError(`compose project "${this.options.project}" has no NATS node ${index} (it has ${nodes.map((n) => n.container.service).join(', ') || 'none'})`);
    return found.container;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async startAgain(container: ComposeContainer): Promise<void> {
    await this.run(['wait', container.id]);
    await sleep(RESTART_DELAY_MS);
    await this.dockerOk(['start', container.id]);
    this.restarts.set(container.name, (this.restarts.get(container.name) ?? 0) + 1);
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private async containers(): Promise<ComposeContainer[]> {
    return parseContainers(await this.docker(listContainersArgs(this.options.project)));
  }

  private async natsContainers(): Promise<{ index: number; container: ComposeContainer }[]> {
    return (await this.containers())
      .map((container) => ({ index: natsNodeIndex(container.service), container }))
      .filter((n): n is { index: number; container: ComposeContainer } => n.index !== undefined)
      .sort((a, b) => a.index - b.index);
  }



  private async dockerOk(args: readonly string[]): Promise<DockerResult> {
    const result = await this.run(args);
    if (result.code !== 0) throw new ChaosTargetError(`docker ${args.join(' ')} failed: ${result.stderr.trim() || `exit code ${result.code}`}`);
    return result;
  }
}
