import type { Micros } from '@sluice/contracts';

/**
 * An engine's step-time regression for one model, in wall-clock µs: BLIS's blackbox β
 * (step = β0 + β1·prefill tokens + β2·decode tokens), already divided by the workers' `timeScale`
 * (a worker running modelled time N× faster takes 1/N of the modelled time in real time).
 */
export interface StepCoefficients {
  readonly stepBaseUs: number;
  readonly prefillPerTokenUs: number;
  readonly decodePerTokenUs: number;
  /** The latency profile they came from (a span attribute). */
  readonly profile: string;
}

/**
 * What admission knows beyond the instances' snapshots (docs/behaviour.md §2, "predictive
 * inputs"): the requests it admitted that no report shows yet, the requests flow control holds
 * ahead of a new one, and the serving model's step-time coefficients. Kept by the admission core
 * and handed to the policy inside the view, so a policy never needs to know who keeps them. Taken
 * at one decision's time: each answer is as of then.
 */
export interface AdmissionSignals {
  /** Requests of `model` this admission process admitted that neither a snapshot nor a queue report can show yet. */
  unseenAdmitted(model: string): number;
  /**
   * Requests of `model` waiting in flow control that will be dispatched before one of `priority`:
   * those of equal or higher priority (a lower band waits for this one). 0 when no report was heard.
   */
  queuedAhead(model: string, priority: number): number;
  /** Age of the oldest live flow-control queue report; undefined when none was heard. */
  queueReportAgeUs(): Micros | undefined;
  /** The model's coefficients from its serving profile; undefined when admission was given none for it. */
  stepCoefficients(model: string): StepCoefficients | undefined;
}
