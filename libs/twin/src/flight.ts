import type { Micros, SloClass, StageTimings } from '@sluice/contracts';
import type { HeldRequest, StageRequest } from '@sluice/stages';
import type { WorkloadRequest } from '@sluice/workload';
import type { HopLatencies } from './hops.js';

/**
 * A request on its way through the twin. One object serves as the request every stage core reads
 * (`StageRequest`), the one its instance holds and marks (`HeldRequest`, the engine's request),
 * and the twin's own bookkeeping for the client's record: a step's tokens reach the flight they
 * belong to directly, and a million requests cost a million objects, not three million.
 */
export interface Flight extends StageRequest, HeldRequest {
  readonly sloClass: SloClass;
  readonly request: WorkloadRequest;
  /** Its place in the workload, which is its record's place in the result. */
  readonly position: number;
  /** The index of the instance it was handed to, among every worker process's (`World.instanceList`), once routed. */
  servedBy: number;
  /**
   * The steps of its instance that gave it a token (one each), as runs of consecutive step
   * numbers: the run under way here (length 0 until the first token), and earlier ones as
   * (start, length) pairs, each cut by a step that gave it none (a preemption, a batch whose token
   * budget ran out before it). Their times are read from the instance's `StepTimes` when the
   * record is written.
   */
  runStart: number;
  runLength: number;
  earlierRuns: number[] | undefined;
  /** Which attempt this is: 0, then one more each time the gateway re-submits the request (migration). */
  readonly attempt: number;
  /**
   * The gateway is done with this attempt: the request ended, or a newer attempt replaced it. A
   * message still carrying it is stale and is not served (the live stages' attempt ledger).
   */
  settled: boolean;
  /** When the client received the tokens of the earlier attempts, in ms (none: undefined). */
  readonly earlierTokensMs: readonly number[] | undefined;
  /** Disaggregated: the router's prefill pick for this attempt (its decode instance sends the prompt there). */
  prefillInstanceId: string | undefined;
  /** On a prefill instance: the copy is a prefill job for that decode instance. */
  readonly prefillFor: string | undefined;
  /**
   * The hops this request takes: the run's constants, or the live path it drew from a hop profile
   * (`HopDraws`); every attempt of the request takes the same.
   */
  readonly hops: HopLatencies;
  /**
   * What its way back to the client takes beyond the run's constant (`hops.returnUs` − the base
   * path's), in µs: its instance's step log holds the base, shared by every request of a step.
   */
  readonly returnExtraUs: number;
}

/**
 * Every field written here, in one order, so that all flights share one shape (one hidden class);
 * the worker marks are written out rather than spread from `UNMARKED`, as the records are (a
 * million flights are made in a run).
 */
export function newFlight(request: WorkloadRequest, position: number, fields: {
  readonly model: string;
  readonly priority: number;
  readonly blockHashes: readonly number[];
  readonly bodyBytes: number;
  readonly arrivalUs: Micros;
  readonly deadlineUs: Micros;
  /** The TTFT target as the gateway read it from the request's headers. */
  readonly sloTtftUs: Micros | undefined;
  readonly hops: HopLatencies;
  readonly returnExtraUs: number;
}): Flight {
  const unset = undefined as Micros | undefined;
  const timings: StageTimings = {};
  return {
    id: `r${request.index}`,
    model: fields.model,
    inputTokens: request.inputTokens.length,
    maxTokens: request.maxTokens,
    priority: fields.priority,
    sloClass: request.sloClass,
    fairnessId: request.fairnessId,
    blockHashes: fields.blockHashes,
    bodyBytes: fields.bodyBytes,
    arrivalUs: fields.arrivalUs,
    deadlineUs: fields.deadlineUs,
    sloTtftUs: fields.sloTtftUs,
    timings,
    workerArrivalUs: fields.arrivalUs,
    admittedUs: unset,
    cachedTokens: 0,
    firstTokenUs: unset,
    lastTokenUs: unset,
    generated: 0,
    gone: false,
    transferredBlocks: 0,
    request,
    position,
    servedBy: -1,
    runStart: -1,
    runLength: 0,
    earlierRuns: undefined,
    attempt: 0,
    settled: false,
    earlierTokensMs: undefined,
    prefillInstanceId: undefined,
    prefillFor: undefined,
    hops: fields.hops,
    returnExtraUs: fields.returnExtraUs,
  };
}

/**
 * The gateway re-submits a request as its next attempt (migration, as the live gateway does):
 * the tokens the client already has are appended to the prompt and taken off `max_tokens`, so the
 * instance that continues it prefills them and generates only the rest. A fresh object, so that
 * whatever still holds the old attempt (a dead instance's engine, a message in flight) cannot
 * touch this one; its timings start empty, as the live re-submission's do.
 */
export function nextAttempt(flight: Flight, fields: {
  readonly attempt: number;
  readonly blockHashes: readonly number[];
  /** Every token the client has received so far, in ms. */
  readonly tokensMs: readonly number[];
}): Flight {
  const { request } = flight;
  const sent = fields.tokensMs.length;
  const unset = undefined as Micros | undefined;
  return {
    id: flight.id,
    model: flight.model,
    inputTokens: request.inputTokens.length + sent,
    maxTokens: request.maxTokens - sent,
    priority: flight.priority,
    sloClass: flight.sloClass,
    fairnessId: flight.fairnessId,
    blockHashes: fields.blockHashes,
    bodyBytes: flight.bodyBytes,
    arrivalUs: flight.arrivalUs,
    deadlineUs: flight.deadlineUs,
    sloTtftUs: flight.sloTtftUs,
    timings: {},
    workerArrivalUs: flight.arrivalUs,
    admittedUs: unset,
    cachedTokens: 0,
    firstTokenUs: unset,
    lastTokenUs: unset,
    generated: 0,
    gone: false,
    transferredBlocks: 0,
    request,
    position: flight.position,
    servedBy: -1,
    runStart: -1,
    runLength: 0,
    earlierRuns: undefined,
    attempt: fields.attempt,
    settled: false,
    earlierTokensMs: sent > 0 ? fields.tokensMs : undefined,
    prefillInstanceId: undefined,
    prefillFor: undefined,
    hops: flight.hops,
    returnExtraUs: flight.returnExtraUs,
  };
}

/**
 * The prompt of a disaggregated request, as its decode instance sends it to its prefill instance:
 * a copy of its own (the prefill instance marks it, the decode instance marks the request), with
 * max_tokens 1 as llm-d's sidecar sends it. It gives the client nothing.
 */
export function prefillJob(flight: Flight, decodeInstanceId: string): Flight {
  return { ...flight, maxTokens: 1, prefillInstanceId: undefined, prefillFor: decodeInstanceId };
}
