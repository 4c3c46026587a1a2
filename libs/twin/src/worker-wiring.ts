import type { TwinNetwork } from './network.js';
import type { GatewayInbox, WorkerSignals } from './ports.js';
import type { TwinInstance } from './worker-fleet.js';

/** `up`: serving; `draining`: finishing what it holds, taking nothing new; `gone`: killed, or left after its drain. */
export type ProcessState = 'up' | 'draining' | 'gone';

/** What a worker process of the twin is built with, besides its settings. */
export interface WorkerProcessWiring {
  readonly network: TwinNetwork;
  readonly signals: WorkerSignals;
  readonly inbox: GatewayInbox;
  /** The terminated process's grace period (worker.shutdownGraceMs; chaos runs). */
  readonly shutdownGraceUs: number;
  /** Check each instance's invariants after each of its steps (tests). */
  readonly checkInvariants: boolean;
  /** BLIS parity mode: a request leaves the routers' in-flight counts at its completing step's start. */
  readonly blis: boolean;
  /** Requests without a record yet (for a stall's message). */
  readonly outstanding: () => number;
  /** Any instance of the twin by id (a decode instance's prefill instance, and back). */
  readonly instance: (instanceId: string) => TwinInstance | undefined;
}
