import { httpStatusOf, outcomeOf, type OutcomeReason, type Stage } from '@sluice/contracts';
import type { RunRecord, ServedTimings } from '@sluice/metrics';
import type { WorkerCompletion } from '@sluice/stages';
import type { Flight } from './flight.js';
import type { StepTimes } from './step-times.js';

const ms = (us: number) => us / 1000;

/** Where a streamed run's records go as they settle (its request's place in the workload with it). */
export type RecordSink = (record: RunRecord, position: number) => void;

/**
 * What the twin's client sees of each request: its record, as `sluice run` writes one for a live
 * request. Kept at the request's place in the workload (sorting a million records by id took
 * 1.6 s), or, given a sink, handed to it as it settles and forgotten: a record holds its token
 * times (~1.5 KB a request), so ten million of them do not fit in memory. The times are when the
 * answer reaches the client: the stage's answer plus the way back.
 */
export class ClientRecords {
  private readonly records: (RunRecord | undefined)[];
  private expected: number;
  private ended = 0;

  /** `count` requests, their records kept; or, with `sink`, none yet (`expect` counts them in as they come). */
  constructor(count: number, private readonly sink?: RecordSink) {
    this.records = sink === undefined ? new Array<RunRecord | undefined>(count) : [];
    this.expected = sink === undefined ? count : 0;
  }

  /** A streamed run: one more request is on its way (its arrival is on the agenda). */
  expect(): void {
    this.expected++;
  }

  /** Requests without a record yet. */
  get outstanding(): number {
    return this.expected - this.ended;
  }

  /** How many records were written. */
  get count(): number {
    return this.ended;
  }

  /** Every record kept, in request order (throws if one is missing: the caller checks `outstanding` first). */
  all(): RunRecord[] {
    return this.records.filter((record): record is RunRecord => record !== undefined);
  }

  private settle(position: number, record: RunRecord): void {
    this.ended++;
    if (this.sink === undefined) this.records[position] = record;
    else this.sink(record, position);
  }

  // Records are written out field by field, not spread from a common part: a million of them stay
  // on the heap, and with literals the scavenges promote 0.6–0.8 KB a request instead of 1.8–2.1
  // (at 100,000 requests; docs/benchmarks.md). The fields keep one order, the JSON's.

  /**
   * The request ended other than served: the client got the stage's error answer at `clientUs`,
   * after the tokens it had already received, if any (a request that lost its worker midway).
   * `stage` undefined: the answer names none (stage_lost, as the live client records it).
   */
  failed(flight: Flight, clientUs: number, reason: OutcomeReason, stage: Stage | undefined, tokenTimesMs?: readonly number[]): void {
    if (stage === undefined || (tokenTimesMs !== undefined && tokenTimesMs.length > 0)) {
      this.failedMidway(flight, clientUs, reason, stage, tokenTimesMs ?? []);
      return;
    }
    const { request } = flight;
    this.settle(flight.position, {
      id: flight.id,
      fairnessId: request.fairnessId,
      sloClass: request.sloClass,
      slo: request.slo,
      priority: flight.priority,
      arrivalMs: ms(flight.arrivalUs),
      endMs: ms(clientUs),
      attempts: 1,
      status: httpStatusOf(reason),
      outputTokens: 0,
      outcome: outcomeOf(reason),
      reason,
      stage,
    });
  }

  /** Rare, so written apart: the common failure keeps its one record shape. */
  private failedMidway(flight: Flight, clientUs: number, reason: OutcomeReason, stage: Stage | undefined, tokenTimesMs: readonly number[]): void {
    const { request } = flight;
    this.settle(flight.position, {
      id: flight.id,
      fairnessId: request.fairnessId,
      sloClass: request.sloClass,
      slo: request.slo,
      priority: flight.priority,
      arrivalMs: ms(flight.arrivalUs),
      endMs: ms(clientUs),
      attempts: 1,
      status: httpStatusOf(reason),
      outputTokens: tokenTimesMs.length,
      ...(tokenTimesMs.length > 0 ? { tokenTimesMs: [...tokenTimesMs], firstTokenMs: tokenTimesMs[0]! } : {}),
      outcome: outcomeOf(reason),
      reason,
      ...(stage === undefined ? {} : { stage }),
    });
  }

  /**
   * Served: its last token reached the client at `clientUs`; every token's time is in its
   * instance's step log, and those of its earlier attempts on the flight (a migrated request).
   */
  completed(flight: Flight, completion: WorkerCompletion, clientUs: number, instanceId: string, stepTimes: StepTimes): void {
    const { request } = flight;
    const { admissionMs, flowQueueMs, routingMs } = flight.timings;
    // Every served request passed admission, flow control and the router, so all three are set.
    const timings: ServedTimings = {
      admissionMs: admissionMs!,
      flowQueueMs: flowQueueMs!,
      routingMs: routingMs!,
      workerQueueMs: ms(completion.workerQueueUs),
      prefillMs: ms(completion.prefillUs),
      decodeMs: ms(completion.decodeUs),
    };
    const tokenTimesMs = tokenTimesOf(flight, stepTimes);
    const record: RunRecord = {
      id: flight.id,
      fairnessId: request.fairnessId,
      sloClass: request.sloClass,
      slo: request.slo,
      priority: flight.priority,
      arrivalMs: ms(flight.arrivalUs),
      endMs: ms(clientUs),
      attempts: 1,
      status: httpStatusOf('ok'),
      outcome: 'completed',
      outputTokens: tokenTimesMs.length,
      tokenTimesMs,
      firstTokenMs: tokenTimesMs[0]!,
      instance: instanceId,
      timings,
      cachedTokens: flight.cachedTokens,
    };
    // With max_tokens 0 a request is served without a token, and so without a first-token time
    // (rare: the record is rebuilt without the field rather than every record built in two steps).
    if (tokenTimesMs.length === 0) {
      const { firstTokenMs: _none, ...withoutFirstToken } = record;
      this.settle(flight.position, withoutFirstToken);
      return;
    }
    // BLIS parity mode only (the engine gives the ITL sum then): BLIS's end beside the wall-clock one.
    const itlUs = completion.itlSinceRestartUs;
    this.settle(flight.position, itlUs === undefined ? record : { ...record, blisLastChunkMs: tokenTimesMs[0]! + ms(itlUs) });
  }
}

/**
 * Counts one token of a step just logged as `step`: it extends the flight's run of consecutive
 * steps, or starts a new one. A token costs a counter on a flight, not a write to a per-request
 * array that is cold by the time the request completes.
 */
export function countToken(flight: Flight, step: number): void {
  if (flight.runStart + flight.runLength === step) flight.runLength++;
  else {
    if (flight.runLength > 0) (flight.earlierRuns ??= []).push(flight.runStart, flight.runLength);
    flight.runStart = step;
    flight.runLength = 1;
  }
}

/**
 * When the client received each of the flight's tokens, in ms: those of its earlier attempts, then
 * the times of the steps of its instance (`stepTimes`, its step log) that gave it one.
 */
export function tokenTimesOf(flight: Flight, stepTimes: StepTimes | undefined): number[] {
  const earlier = flight.earlierTokensMs;
  if (flight.runLength === 0 || stepTimes === undefined) return earlier === undefined ? [] : [...earlier];
  const runs = flight.earlierRuns;
  let count = flight.runLength;
  if (runs) for (let r = 1; r < runs.length; r += 2) count += runs[r]!;
  if (earlier) count += earlier.length;
  const times = new Array<number>(count);
  let at = 0;
  if (earlier) for (; at < earlier.length; at++) times[at] = earlier[at]!;
  const firstOfThisAttempt = at;
  if (runs) for (let r = 0; r < runs.length; r += 2) at = stepTimes.copyRun(times, at, runs[r]!, runs[r + 1]!);
  stepTimes.copyRun(times, at, flight.runStart, flight.runLength);
  // The step log holds the run's base way back; this request's own path may take longer or less.
  if (flight.returnExtraUs !== 0) for (let i = firstOfThisAttempt; i < count; i++) times[i] = times[i]! + flight.returnExtraUs / 1000;
  return times;
}
