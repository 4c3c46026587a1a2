import type { CancelRequest, Micros, MigrationReason, OutcomeReason, ResumeStage, Stage } from '@sluice/contracts';

/**
 * A request as the gateway core reads it: one attempt of it. The wire's `InferenceRequest` is one
 * (the gateway service); the twin's flight is another. Times are epoch µs in a service and virtual
 * µs in the twin.
 */
export interface GatewayRequest {
  readonly id: string;
  /** 0, then one more each time the gateway re-submits the request. */
  readonly attempt: number;
  readonly inputTokens: number;
  readonly maxTokens: number;
  /** When the gateway received it: its deadline counts from here. */
  readonly arrivalUs: Micros;
  /** When the gateway gives up on it (`deadlineOf`); infinite: never. */
  readonly deadlineUs: Micros;
}

/** What the next attempt of a re-submitted request is made of (Dynamo's migration). */
export interface NextAttempt {
  readonly attempt: number;
  /** The tokens the client already has: appended to the prompt, so the instance that continues the request prefills them. */
  readonly outputTokens: number;
  /** The first attempt's prompt plus `outputTokens`. */
  readonly inputTokens: number;
  /** The first attempt's `max_tokens` less `outputTokens`: only the rest is generated. */
  readonly maxTokens: number;
}

/**
 * Builds the request of the next attempt from the one it replaces: the driver's own shape (the
 * wire's request, the twin's flight), with the core's numbers, its block ids recomputed over the
 * prompt and the output so far (the driver knows the tokens: `carried` holds them live), and its
 * stage timings empty.
 */
export type Reattempt<R, C> = (previous: R, carried: C, next: NextAttempt) => R;

/** How a completed request ended: its last attempt's `end`, or, every token already sent, lost with its holder before its end came. */
export type Completion<E> = { readonly end: E } | { readonly lostWith: string };

/** Why a request ended other than completed; `stage` names the stage that ended it when a stage did (its error frame). */
export interface GatewayFailure {
  readonly reason: OutcomeReason;
  readonly message: string;
  readonly stage: Stage | undefined;
  /** The answer's `retry-after` in whole seconds (a 429 or 503: `retryAfterSecondsOf`); undefined for other answers. */
  readonly retryAfterS?: number | undefined;
}

/** A re-submission the core decided: why, who lost or handed back the request, where it resumes. */
export interface GatewayMigration {
  readonly reason: MigrationReason;
  readonly from: string;
  readonly resumeAt: ResumeStage;
  /** The new attempt's number. */
  readonly attempt: number;
  /** Tokens the client had when the request was re-submitted. */
  readonly tokensSent: number;
}

/**
 * What the gateway core does to the world, and all it does: the gateway service implements it on
 * HTTP and the bus, the twin on its agenda. `carried` is the driver's own context for the request
 * (its HTTP exchange and span), passed back untouched; `E` is what the driver hands the core with
 * an `end` (the worker's timings and instance), passed back at completion.
 */
export interface GatewayEffects<R, C, E> {
  /** Hand this attempt to `stage` (one try); a refused handoff comes back as `handoffRefused`. */
  handOn(request: R, carried: C, stage: ResumeStage, nowUs: Micros): void;
  /** `holder` at `stage` took the current attempt (the answer's holders). */
  held(request: R, carried: C, stage: Stage, holder: string): void;
  /** `count` more tokens for the client (the tokens it lacks, never one twice). */
  tokens(request: R, carried: C, count: number, nowUs: Micros): void;
  /** Terminal: the answer is complete. */
  complete(request: R, carried: C, completion: Completion<E>, nowUs: Micros): void;
  /** Terminal: the request ends with this reason (an error answer, or an error event in a stream). */
  fail(request: R, carried: C, failure: GatewayFailure, nowUs: Micros): void;
  /** Every copy downstream (of `cancel.attempt` and older, or all) lets the request go. */
  cancel(request: R, cancel: CancelRequest, nowUs: Micros): void;
  /** The request is re-submitted as a new attempt (`request` is the attempt it replaces). */
  migrated(request: R, carried: C, migration: GatewayMigration, nowUs: Micros): void;
  /** `holder` (at `stage`) went silent holding these requests, which are re-submitted. */
  holderSilent(holder: string, stage: Stage, requestIds: readonly string[]): void;
}
