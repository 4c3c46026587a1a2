import { micros, type Micros } from '@sluice/contracts';
import type { EngineRequest } from '@sluice/engine';

/**
 * What the worker stage marks on each request an instance holds, in engine µs. The driver's own
 * request object carries these fields and the stage owns them (it sets them all when it accepts
 * the request): one object per request for the engine, the stage and the driver, so a step's
 * tokens reach what they belong to without a lookup (the twin keeps a million of them).
 */
export interface WorkerMarks {
  /** When it reached the instance. */
  workerArrivalUs: Micros;
  /** When it first entered the running batch. */
  admittedUs: Micros | undefined;
  /** Prompt tokens found in the prefix cache at that first admission. */
  cachedTokens: number;
  firstTokenUs: Micros | undefined;
  lastTokenUs: Micros | undefined;
  /** Tokens sent so far. */
  generated: number;
  /** Cancelled: a step already under way that includes it sends none of its tokens. */
  gone: boolean;
  /** Prompt blocks a KV transfer brought from its prefill instance (disaggregated; else 0). */
  transferredBlocks: number;
}

/**
 * Disaggregated prefill/decode (docs/behaviour.md §1): what the driver's request object says of
 * its part. Both absent: an aggregated request, served whole where it lands.
 */
export interface DisaggregatedPart {
  /** Which attempt of the request this copy is (0, then one more per re-submission): a newer job supersedes an older one. */
  readonly attempt: number;
  /** On a decode instance: the instance that prefills the prompt first (the router's pick). */
  readonly prefillInstanceId?: string | undefined;
  /** On a prefill instance: this is a prefill job for that decode instance (its prompt only; no token streams). */
  readonly prefillFor?: string | undefined;
}

export interface HeldRequest extends EngineRequest, WorkerMarks, DisaggregatedPart {}

/** The marks of a request no instance has taken yet: a driver spreads them into its request object. */
export const UNMARKED: Readonly<WorkerMarks> = Object.freeze({
  workerArrivalUs: micros(0),
  admittedUs: undefined,
  cachedTokens: 0,
  firstTokenUs: undefined,
  lastTokenUs: undefined,
  generated: 0,
  gone: false,
  transferredBlocks: 0,
});

/** A request's time on its instance, for the end frame and the client's record (engine µs). */
export interface WorkerCompletion {
  readonly outputTokens: number;
  /** Arrival at the instance → entry into the running batch. */
  readonly workerQueueUs: number;
  /** Entry into the batch → first token. */
  readonly prefillUs: number;
  /** First token → last token. */
  readonly decodeUs: number;
  /**
   * BLIS parity mode only: the engine's sum of BLIS's ITL list (StepResult.itlSinceRestartUs), so
   * the client's record can give BLIS's E2E beside the wall-clock one. Absent by default.
   */
  readonly itlSinceRestartUs?: number;
}
