import type { Micros } from '@sluice/contracts';
import type { FlowKey } from './flow-key.js';

/**
 * A request waiting in a flow queue: what ordering, capacity and TTL need, plus the caller's own
 * payload (the stage keeps its request and the driver's context there). Times are µs on the
 * caller's clock.
 */
export interface QueuedRequest<T = unknown> {
  readonly id: string;
  readonly flow: FlowKey;
  /** Counted against `maxBytes` (the HTTP body's size, as the Endpoint Picker counts it). */
  readonly byteSize: number;
  /** Tokens the request may hold on a server (prompt + max output): concurrency in tokens. */
  readonly tokens: number;
  /** When the request entered the system (the gateway's arrival): SLO deadlines count from here. */
  readonly arrivalUs: Micros;
  readonly enqueuedAtUs: Micros;
  /** enqueuedAt + TTL: evicted then (503), and the deadline the EDF ordering uses. */
  readonly ttlDeadlineUs: Micros;
  /** arrival + `x-slo-ttft-ms`, when the client sent one. */
  readonly sloDeadlineUs: Micros | undefined;
  /** Enqueue order: the tie-break of every ordering policy, so ties are FCFS. */
  readonly seq: number;
  readonly payload: T;
}
