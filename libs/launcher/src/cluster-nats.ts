import { appendFileSync } from 'node:fs';
import { decideRestart, DEFAULT_RESTART_POLICY, NO_RESTARTS, type ExitFacts, type RestartHistory, type RestartPolicy } from './backoff.js';
import { delay } from './net.js';
import { parseNatsServers, startNats, type NatsKind, type NatsServerHandle, type StartNatsOptions } from './nats-server.js';
import { describeExit } from './process.js';

/** One node of a local NATS cluster: its client URL, process and monitoring endpoint (`/varz`, `/connz`). */
export interface NatsNode {
  readonly url: string;
  readonly pid?: number;
  readonly monitorUrl?: string;
}

/** The NATS server the launcher started exited on its own and is started again after `delayMs`. */
export interface NatsRestartEvent {
  readonly url: string;
  /** 1 for the first restart of a run of crashes (a run ends once the server stays up resetAfterMs). */
  readonly attempt: number;
  readonly delayMs: number;
  /** `signal SIGKILL`, `exit code 1`, or why the previous restart failed. */
  readonly how: string;
}

/** How the launcher hears of its NATS server's exits and returns (supervision). */
export interface NatsSupervision {
  readonly policy?: RestartPolicy;
  readonly onRestart?: (event: NatsRestartEvent) => void;
  /** Up again on the same URL after an exit; `pid` is the new process. */
  readonly onReady?: (nats: { readonly url: string; readonly kind: NatsKind; readonly pid?: number }) => void;
  /** The restarts kept failing (`startFailures` in a row): NATS stays down until the cluster is stopped. */
  readonly onGaveUp?: (nats: { readonly url: string; readonly startFailures: number; readonly how: string }) => void;
}

/** A listener that throws must not stop the supervision. */
function notify<T>(listener: ((value: T) => void) | undefined, value: T): void {
  try {
    listener?.(value);
  } catch {
    // the caller's problem
  }
}

/**
 * The cluster's NATS server, which a chaos run may take down and bring back on the same URL (the
 * services hold that URL and reconnect to it). Only a server the launcher started can be
 * restarted: an external one belongs to someone else.
 *
 * A single nats-server process is supervised as the services are (supervisor.ts): when it exits
 * without being asked to (a crash, `kill -9`), it is started again on the same host and port, with
 * the same credentials and TLS, on the backoff of `backoff.ts`; the services' clients reconnect
 * every 250 ms (libs/bus), so serving resumes as soon as it answers. A container is not watched
 * (Docker owns its lifecycle), nor are the nodes of a local cluster, whose loss is what the
 * stop-nats-node fault plays on purpose.
 */
export class ClusterNats {
  /** Handles stopped on purpose (restart(), stop()): their exit is not a crash. */
  private readonly deliberate = new WeakSet<NatsServerHandle>();
  private history: RestartHistory = NO_RESTARTS;
  private upSince = Date.now();
  /** A supervised restart under way; restart() refuses meanwhile, stop() waits for it. */
  private recovering: Promise<void> | undefined;
  private readonly closed = new AbortController();

  private constructor(
    private handle: NatsServerHandle,
    private readonly options: StartNatsOptions,
    private readonly supervision: NatsSupervision,
  ) {
    this.watch(handle);
  }

  static async start(options: StartNatsOptions, supervision: NatsSupervision = {}): Promise<ClusterNats> {
    return new ClusterNats(await startNats(options), options, supervision);
  }

  private watch(handle: NatsServerHandle): void {
    void handle.exited?.then(({ code, signal }) => {
      if (handle !== this.handle || this.deliberate.has(handle) || this.closed.signal.aborted) return;
      this.recovering = this.recover(describeExit(code, signal)).finally(() => {
        this.recovering = undefined;
      });
    });
  }

  /** Starts the server again on its URL, on the backoff, until it answers or the policy gives up. */
  private async recover(firstHow: string): Promise<void> {
    const policy = this.supervision.policy ?? DEFAULT_RESTART_POLICY;
    const [server] = parseNatsServers(this.handle.url);
    if (!server) return;
    let how = firstHow;
    let facts: ExitFacts = { wasReady: true, readyForMs: Date.now() - this.upSince };
    for (;;) {
      const decision = decideRestart(this.history, facts, policy);
      this.history = decision.history;
      if (decision.kind === 'give-up') {
        this.note(`nats exited (${how}), ${decision.startFailures} failed starts in a row; giving up`);
        notify(this.supervision.onGaveUp, { url: this.handle.url, startFailures: decision.startFailures, how });
        return;
      }
      this.note(`nats exited (${how}); restarting in ${decision.delayMs} ms on ${this.handle.url} (attempt ${decision.attempt})`);
      notify(this.supervision.onRestart, { url: this.handle.url, attempt: decision.attempt, delayMs: decision.delayMs, how });
      await delay(decision.delayMs, this.closed.signal);
      if (this.closed.signal.aborted) return;
      try {
        const { url: _external, ...options } = this.options;
        this.handle = await startNats({ ...options, host: server.host, port: server.port, docker: false });
      } catch (error) {
        how = `the restart failed: ${(error as Error).message.split('\n')[0]}`;
        facts = { wasReady: false, readyForMs: 0 };
        continue;
      }
      if (this.closed.signal.aborted) {
        await this.handle.stop();
        return;
      }
      this.upSince = Date.now();
      this.watch(this.handle);
      notify(this.supervision.onReady, { url: this.handle.url, kind: this.handle.kind, ...(this.handle.pid !== undefined ? { pid: this.handle.pid } : {}) });
      return;
    }
  }

  /** A launcher line in the server's log, as the supervisor writes one in each service's. */
  private note(line: string): void {
    if (this.options.logFile === undefined) return;
    try {
      appendFileSync(this.options.logFile, `--- ${new Date().toISOString()} ${line}\n`);
    } catch {
      // a log that cannot be written must not stop the supervision
    }
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

  /** Its monitoring endpoint, when it was started with `monitor` (a new port after a restart). */
  get monitorUrl(): string | undefined {
    return this.handle.monitorUrl;
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
    if (this.recovering) throw new Error('cannot restart NATS: it exited and the supervisor is starting it again');
    const kind = this.handle.kind;
    this.deliberate.add(this.handle);
    await this.handle.stop();
    await delay(downMs, signal);
    if (signal.aborted) return;
    // The same kind of server as before: a binary does not turn into a container on the way back.
    const { url: _external, ...options } = this.options;
    this.handle = await startNats({ ...options, host: server.host, port: server.port, ...(kind === 'process' ? { docker: false } : { binary: false }) });
    this.upSince = Date.now();
    this.watch(this.handle);
  }

  /** Stops the server for good: a pending supervised restart is cancelled first. */
  async stop(): Promise<void> {
    this.closed.abort();
    await this.recovering;
    this.deliberate.add(this.handle);
    await this.handle.stop();
  }
}
