import type { SloTargets } from '@sluice/contracts';

/** How a request left the system (or that it has not yet). */
export type Outcome = 'completed' | 'rejected' | 'dropped' | 'failed' | 'in_flight';

export const OUTCOMES: readonly Outcome[] = ['completed', 'rejected', 'dropped', 'failed', 'in_flight'];

/**
 * The result of one request, as recorded by the load generator. All times are in milliseconds on
 * one clock (the run's injected clock); the metrics library never reads a clock itself.
 */
export interface RequestRecord {
  readonly id: string;
  /** The flow it belonged to within its priority band: the tenant (the fairness id it was sent with). */
  readonly fairnessId: string;
  readonly sloClass: string;
  /** The request's latency targets (docs/metrics.md, goodput); absent or undefined: none. */
  readonly slo?: SloTargets | undefined;
  /** When the request was offered to the system. */
  readonly arrivalMs: number;
  /** When the first output token arrived; absent when prefill never finished. */
  readonly firstTokenMs?: number;
  /** When the request ended (completion, rejection, drop or failure); absent while in flight. */
  readonly endMs?: number;
  /**
   * Arrival time of every output token, in order (the first entry is the first token). The gaps
   * between consecutive entries are the request's inter-token latencies. Ignored when `itlMs` is given.
   */
  readonly tokenTimesMs?: readonly number[];
  /** The inter-token gaps directly, in ms; takes precedence over `tokenTimesMs`. */
  readonly itlMs?: readonly number[];
  /** Output tokens delivered to the client. */
  readonly outputTokens: number;
  readonly outcome: Outcome;
  /** Why a request was rejected, dropped or failed ('unspecified' when absent). */
  readonly reason?: string;
  /** Which stage rejected the request, e.g. 'admission' or 'flow-control' ('unspecified' when absent). */
  readonly stage?: string;
  /**
   * Prompt tokens the serving instance found in its prefix cache (`usage.prompt_tokens_details.cached_tokens`,
   * live; the engine's count, in the twin): whether an admitted request was a cache hit.
   */
  readonly cachedTokens?: number;
}

/** Per-stage durations the pipeline reported for a served request, in ms (the gateway's stage timings). */
export interface ServedTimings {
  readonly admissionMs?: number;
  readonly flowQueueMs?: number;
  readonly routingMs?: number;
  readonly workerQueueMs?: number;
  readonly prefillMs?: number;
  readonly decodeMs?: number;
}

/**
 * One request of a run as a client sees it, live (`sluice run`) or in the twin (`sluice
 * simulate`): the record the metrics use, plus the answer's status, the request's priority and,
 * for served requests, where and how it was served. Times are ms since the run started.
 */
export interface RunRecord extends RequestRecord {
  /** The HTTP status (0 when the connection itself failed). */
  readonly status: number;
  readonly priority: number;
  /** The worker instance that served it (completed requests). */
  readonly instance?: string;
  readonly timings?: ServedTimings;
  /** Attempts made (1 + retries of 503). */
  readonly attempts: number;
  /**
   * The gateway's id for the request (its `x-request-id`; of the last attempt), live only: what the
   * stages and the router's decision trace call it, where `id` is the workload's.
   */
  readonly gatewayRequestId?: string;
  /**
   * The W3C trace id of the request's trace (the gateway's `x-sluice-trace-id`; of the last attempt),
   * live only and only when the gateway recorded spans: report.html links it to Jaeger.
   */
  readonly traceId?: string;
  /**
   * `usage.completion_tokens` of the stream's usage chunk (the client asks for it with
   * `stream_options.include_usage`), so the tokens received can be checked against the server's count.
   */
  readonly usageCompletionTokens?: number;
  /**
   * BLIS parity mode, in the twin: when BLIS would say the last token came (its
   * `last_chunk_time_us`): the first token plus BLIS's ITL sum after the last preemption, which
   * leaves out the time lost to preemption (docs/blis-mode.md). `endMs` stays the wall-clock end.
   */
  readonly blisLastChunkMs?: number;
}
