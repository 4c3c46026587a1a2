import type { Micros, StageTimings } from '@sluice/contracts';
import type { PolicyRequest } from '@sluice/policies';

/**
 * A request as the stage cores read it: what the policies decide on, plus what flow control and
 * the timings need. The wire's `InferenceRequest` is one (the services); the twin's flight is
 * another. Times are epoch µs in a service and virtual µs in the twin.
 */
export interface StageRequest extends PolicyRequest {
  /** Counted against flow control's `maxBytes` (the HTTP body's size). */
  readonly bodyBytes: number;
  /** When the gateway received it: SLO deadlines count from here. */
  readonly arrivalUs: Micros;
  /** When the gateway gives up on it; flow control forgets an unanswered dispatch then. */
  readonly deadlineUs: Micros;
  /** The client's TTFT objective, for SLO-deadline ordering. */
  readonly sloTtftUs?: Micros | undefined;
  /** Per-stage durations for the client (ms, as reported); each stage writes its own. */
  readonly timings: StageTimings;
}
