import { spawn, type ChildProcess } from 'node:child_process';
import { decideRestart, NO_RESTARTS, type RestartHistory, type RestartPolicy } from './backoff.js';
import { ClusterStartError } from './cluster-errors.js';
import { describeExit, formatTail, isRunning, OutputLog, terminate } from './process.js';
import { pollReady } from './readiness.js';
import { trackChild } from './reaper.js';
import type { ServiceName } from './services.js';

/** One service process of a cluster: what to run and where it answers. */
export interface ProcessSpec {
  /** `gateway`, `router`, … or `worker-0`, `worker-1`, … (several processes of one service). */
  readonly name: string;
  readonly service: ServiceName;
  readonly script: string;
  /** Node's own flags, before the script (SERVICE_NODE_FLAGS for the services). */
  readonly nodeArgs?: readonly string[];
  readonly args: readonly string[];
  /** `http://host:port` of its /healthz, /readyz, /metrics. */
  readonly url: string;
  readonly logFile: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * starting: spawned, not yet ready; ready: answered /readyz 200; restarting: exited, a restart is
 * scheduled; exited: exited with no restart scheduled (restart is off, or for the moment between
 * the exit and the decision); failed: the supervisor gave up on it; stopped: stop() was called.
 */
export type ProcessState = 'starting' | 'ready' | 'restarting' | 'exited' | 'failed' | 'stopped';

/** A process of a running cluster, as chaos runs address it. */
export interface ClusterProcess {
  /** `gateway`, `admission`, `flow-controller`, `router`, `worker-0`, `worker-1`, … */
  readonly name: string;
  readonly service: ServiceName;
  /** The current process (a restart changes it); -1 if it could not be spawned. */
  readonly pid: number;
  readonly url: string;
  /** How often the supervisor has started it again. */
  readonly restarts: number;
  readonly state: ProcessState;
  readonly logFile: string;
}

export interface ServiceInfo {
  /** The service kind (`worker` for every worker process). */
  readonly name: ServiceName;
  /** The process (`worker-1`; the service's name for single-process services). */
  readonly process: string;
  readonly pid: number;
  /** `http://host:port` of its /healthz, /readyz, /metrics. */
  readonly url: string;
  readonly logFile: string;
}

export interface ServiceExit {
  readonly name: ServiceName;
  readonly process: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last lines of its output. */
  readonly logTail: readonly string[];
  readonly logFile: string;
  /** Set when the supervisor gave up on the process: this many restarts in a row exited before they were ready. */
  readonly gaveUp?: { readonly startFailures: number };
}

export interface RestartEvent {
  /** The process (`router`, `worker-1`). */
  readonly name: string;
  readonly service: ServiceName;
  /** 1 for the first restart of a run of crashes (a run ends once the process stays up long enough). */
  readonly attempt: number;
  readonly delayMs: number;
  readonly exit: ServiceExit;
}

export interface SupervisorOptions {
  /** Restart a process that exits after it was ready (false: report it through onExit and leave it down). */
  readonly restart: boolean;
  readonly policy: RestartPolicy;
  readonly onLine?: (line: string) => void;
  /** Each time the process becomes ready: the first start and every restart. */
  readonly onReady?: (service: ServiceInfo) => void;
  readonly onRestart?: (event: RestartEvent) => void;
  /** The process exited and stays down: restart is off, or the supervisor gave up (`gaveUp`). */
  readonly onExit?: (exit: ServiceExit) => void;
}

/** A listener that throws must not stop the supervision of the process. */
function notify<T>(listener: ((value: T) => void) | undefined, value: T): void {
  try {
    listener?.(value);
  } catch {
    // the caller's problem, not the process's
  }
}

const stamp = (): string => new Date().toISOString();

/**
 * Runs one service process and keeps it running, as a process manager would: once it has been
 * ready, an exit (whatever its cause, as long as stop() was not called) schedules a restart on the
 * backoff of `policy`; restarts that keep failing before readiness end in giving up. Its output,
 * from every run, goes to one log file, with a launcher line at each start, exit and decision.
 */
export class SupervisedProcess {
  private child: ChildProcess;
  private readonly log: OutputLog;
  private state: ProcessState = 'starting';
  private restarts = 0;
  private history: RestartHistory = NO_RESTARTS;
  /** Date.now() when the current run answered /readyz; undefined while it has not. */
  private readySince: number | undefined;
  /** Restarting begins with the first readiness: a first start that fails fails the cluster start instead. */
  private supervising = false;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Aborts readiness polling on stop(). */
  private readonly stopped = new AbortController();

  private constructor(
    readonly spec: ProcessSpec,
    private readonly options: SupervisorOptions,
  ) {
    this.log = new OutputLog(spec.logFile, 20, options.onLine);
    this.child = this.spawnChild();
  }

  /** Spawns the process; waitFirstReady() then says whether it came up. */
  static start(spec: ProcessSpec, options: SupervisorOptions): SupervisedProcess {
    return new SupervisedProcess(spec, options);
  }

  get name(): string {
    return this.spec.name;
  }

  info(): ClusterProcess {
    const { name, service, url, logFile } = this.spec;
    return { name, service, pid: this.child.pid ?? -1, url, restarts: this.restarts, state: this.state, logFile };
  }

  serviceInfo(): ServiceInfo {
    const { name, service, url, logFile } = this.spec;
    return { name: service, process: name, pid: this.child.pid ?? -1, url, logFile };
  }

  /**
   * Resolves once the first run answers /readyz 200; rejects with ClusterStartError when it exits
   * first, is not ready by `deadline`, or the start is aborted (by `signal` or stop()).
   */
  async waitFirstReady(deadline: number, readyTimeoutMs: number, signal?: AbortSignal): Promise<void> {
    const { name, service, url } = this.spec;
    const child = this.child;
    const outcome = await pollReady(child, url, { deadline, signal: signal ? AbortSignal.any([signal, this.stopped.signal]) : this.stopped.signal });
    const fail = (message: string): ClusterStartError =>
      new ClusterStartError(`${message}; last lines of ${this.log.path}:\n${formatTail(this.log.tail())}`, service, this.log.tail(), { process: name });
    switch (outcome) {
      case 'ready':
        this.becameReady();
        return;
      case 'exited':
        await this.log.settled();
        throw fail(`${name} exited before it was ready (${describeExit(child.exitCode, child.signalCode)})`);
      case 'timeout':
        throw fail(`${name} was not ready within ${readyTimeoutMs} ms (GET ${url}/readyz)`);
      case 'aborted':
        throw new ClusterStartError(`the start of ${name} was cancelled`, service, [], { process: name });
    }
  }

  /** Sends a signal to the current run; returns its pid. */
  signal(signal: NodeJS.Signals): number {
    const pid = this.child.pid;
    if (pid === undefined || !isRunning(this.child)) {
      throw new Error(`${this.spec.name} is not running (${this.state}), so it cannot be sent ${signal}`);
    }
    process.kill(pid, signal);
    return pid;
  }

  /** Cancels a pending restart, then SIGTERM (SIGKILL after graceMs). Idempotent. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.stopped.abort();
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    if (this.state !== 'failed') this.state = 'stopped';
    await terminate(this.child, graceMs);
    await this.log.settled(500);
  }

  closeLog(): Promise<void> {
    return this.log.close();
  }

  private spawnChild(): ChildProcess {
    const { script, nodeArgs = [], args, cwd, env } = this.spec;
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: false });
    trackChild(child);
    this.log.note(`--- ${stamp()} pid ${child.pid ?? '?'}: node ${[...nodeArgs, script, ...args].join(' ')}`);
    this.log.attach(child.stdout);
    this.log.attach(child.stderr);
    let ended = false;
    const end = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (ended) return;
      ended = true;
      void this.exited(child, code, signal);
    };
    child.once('exit', end);
    // A spawn that fails emits 'error' and no 'exit'.
    child.on('error', () => {
      if (child.pid === undefined) end(null, null);
    });
    return child;
  }

  private becameReady(): void {
    this.state = 'ready';
    this.readySince = Date.now();
    this.supervising = true;
    notify(this.options.onReady, this.serviceInfo());
  }

  private async exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (child !== this.child) return;
    const wasReady = this.readySince !== undefined;
    const readyForMs = this.readySince === undefined ? 0 : Date.now() - this.readySince;
    this.readySince = undefined;
    if (this.stopping || !this.supervising) return;
    this.state = 'exited';
    // The tail must hold the last words of the process, which may still be in the pipes.
    await this.log.settled(500);
    if (this.stopping) return;

    const { name, service, logFile } = this.spec;
    const how = describeExit(code, signal);
    const exit: ServiceExit = { name: service, process: name, code, signal, logTail: this.log.tail(), logFile };
    if (!this.options.restart) {
      this.log.note(`--- ${stamp()} ${name} exited (${how}); not restarted (restart is off)`);
      notify(this.options.onExit, exit);
      return;
    }
    const decision = decideRestart(this.history, { wasReady, readyForMs }, this.options.policy);
    this.history = decision.history;
    if (decision.kind === 'give-up') {
      this.state = 'failed';
      this.log.note(`--- ${stamp()} ${name} exited (${how}) before it was ready, ${decision.startFailures} starts in a row; giving up`);
      notify(this.options.onExit, { ...exit, gaveUp: { startFailures: decision.startFailures } });
      return;
    }
    const { attempt, delayMs } = decision;
    this.state = 'restarting';
    this.log.note(`--- ${stamp()} ${name} exited (${how}); restarting in ${delayMs} ms (attempt ${attempt})`);
    notify(this.options.onRestart, { name, service, attempt, delayMs, exit });
    this.restartTimer = setTimeout(() => this.restartNow(), delayMs);
  }

  private restartNow(): void {
    this.restartTimer = undefined;
    if (this.stopping) return;
    this.restarts++;
    this.state = 'starting';
    const child = this.spawnChild();
    this.child = child;
    // No deadline: a restart may wait for NATS as long as NATS is down. An exit before readiness
    // reaches exited() as a failed start.
    void pollReady(child, this.spec.url, { signal: this.stopped.signal }).then((outcome) => {
      if (outcome === 'ready' && child === this.child && !this.stopping) this.becameReady();
    });
  }
}
