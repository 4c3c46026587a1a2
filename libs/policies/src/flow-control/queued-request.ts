import type { FlowKey } from './flow-key.js';

/**
 * A request waiting in a flow queue: what ordering, capacity and TTL need, plus the caller's own
 * payload (the service keeps its InferenceRequest and trace context there). Times are
 * milliseconds on the caller's clock.
 */
export interface QueuedRequest<T = unknown> {
  readonly id: string;
  readonly flow: FlowKey;
  /** Counted against `maxBytes` (the HTTP body's size, as the Endpoint Picker counts it). */
  readonly byteSize: number;
  /** Tokens the request may hold on a server (prompt + max output): concurrency in tokens. */
  readonly tokens: number;
  /** When the request entered the system (the gateway's arrival): SLO deadlines count from here. */
  readonly arrivalMs: number;
  readonly enqueuedAtMs: number;
  /** enqueuedAt + TTL: evicted then (503), and the deadline the EDF ordering uses. */
  readonly ttlDeadlineMs: number;
  /** arrival + `x-slo-ttft-ms`, when the client sent one. */
  readonly sloDeadlineMs: number | undefined;
  /** Enqueue order: the tie-break of every ordering policy, so ties are FCFS. */
  readonly seq: number;
  readonly payload: T;
}
