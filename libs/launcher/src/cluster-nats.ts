import { delay } from './net.js';
import { parseNatsServers, startNats, type NatsKind, type NatsServerHandle, type StartNatsOptions } from './nats-server.js';

/** One node of a local NATS cluster: its client URL, process and monitoring endpoint (`/varz`, `/connz`). */
export interface NatsNode {
  readonly url: string;
  readonly pid?: number;
  readonly monitorUrl?: string;
}

/**
 * The cluster's NATS server, which a chaos run may take down and bring back on the same URL (the
 * services hold that URL and reconnect to it). Only a server the launcher started can be
 * restarted: an external one belongs to someone else.
 */
export class ClusterNats {
  private constructor(
    private handle: NatsServerHandle,
    private readonly options: StartNatsOptions,
  ) {}

  static async start(options: StartNatsOptions): Promise<ClusterNats> {
    return new ClusterNats(await startNats(options), options);
  }

  /** The same across restarts. */
  get url(): string {
    return this.handle.url;
  }

  get kind(): NatsKind {
    return this.handle.kind;
  }

  /** The nodes of a local cluster (`nats.clusterSize` > 1). Empty for one server. */
  get nodes(): readonly NatsNode[] {
    return (this.handle.nodes ?? []).map((n) => ({ url: n.url, ...(n.pid !== undefined ? { pid: n.pid } : {}), ...(n.monitorUrl !== undefined ? { monitorUrl: n.monitorUrl } : {}) }));
  }

  /** Stops one node of a local cluster for good (a node lost); the services move to the others. */
  async stopNode(index: number): Promise<void> {
    const node = this.handle.nodes?.[index];
    if (!node) throw new Error(`no NATS node ${index}: the launcher started ${this.handle.nodes?.length ?? 0} cluster nodes`);
    await node.stop();
  }

  /** Starts a node stopped by stopNode again, on its address and with its routes; resolves once it answers. */
  async startNode(index: number): Promise<void> {
    if (!this.handle.startNode) throw new Error('no NATS cluster: the launcher started one server (nats.clusterSize 1) or none');
    await this.handle.startNode(index);
  }

  /** The current nats-server process (kind `process`). */
  get pid(): number | undefined {
    return this.handle.pid;
  }

  /**
   * Stops the server, waits downMs (cut short, and nothing started again, when `signal` aborts),
   * then starts one of the same kind on the same host and port. Rejects with NatsUnavailableError
   * if that port was taken meanwhile; the cluster is then without NATS until stopped.
   */
  async restart(downMs: number, signal: AbortSignal): Promise<void> {
    if (this.handle.kind === 'external') {
      throw new Error(
        `cannot restart NATS at ${this.handle.url}: the launcher did not start it (it came from nats.url, NATS_URL or the natsUrl option). ` +
          'Restart that server yourself, or leave nats.url unset so the launcher starts its own.',
      );
    }
    if (this.handle.nodes) throw new Error('cannot restart a NATS cluster as one server: stop one of its nodes instead (stopNatsNode)');
    const [server] = parseNatsServers(this.handle.url);
    if (!server) throw new Error(`cannot restart NATS: its URL ${this.handle.url} names no server`);
    const kind = this.handle.kind;
    await this.handle.stop();
    await delay(downMs, signal);
    if (signal.aborted) return;
    // The same kind of server as before: a binary does not turn into a container on the way back.
    const { url: _external, ...options } = this.options;
    this.handle = await startNats({ ...options, host: server.host, port: server.port, ...(kind === 'process' ? { docker: false } : { binary: false }) });
  }

  stop(): Promise<void> {
    return this.handle.stop();
  }
}
