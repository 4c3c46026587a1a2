import type { TimedStream } from './completions.js';
import { medianTokenGapMs } from './completions.js';

/**
 * The model's figures for a 512-token prompt and 64 output tokens on qwen3-14b at timeScale 1
 * (docs/behaviour.md §1): queueing delay α0 + α1·512 = 8 982 µs and prefill step β0 + β1·512 =
 * 33 773 µs make the TTFT; 63 decode steps of β0 + β2·1 = 13 605 µs follow the first token.
 */
export const QWEN3_14B_512_IN_64_OUT = { ttftMs: 42.755, decodeMs: 857.115, stepMs: 13.605 } as const;

/** The medians over a few timed streams that the timing suites check against the model. */
export interface ModelTimingFigures {
  /** The instance's own TTFT (queue + prefill) from the reported stage timings. */
  readonly workerTtftMs: number;
  /** The client's TTFT: the instance's plus whatever the path adds. */
  readonly clientTtftMs: number;
  /** The instance's own first token to last, from the reported stage timings. */
  readonly workerDecodeMs: number;
  /** The median gap between token chunks at the client. */
  readonly tokenGapMs: number;
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export function modelTimingFigures(runs: readonly TimedStream[]): ModelTimingFigures {
  return {
    workerTtftMs: median(runs.map((r) => r.workerTtftMs)),
    clientTtftMs: median(runs.map((r) => r.ttftMs)),
    workerDecodeMs: median(runs.map((r) => r.workerDecodeMs)),
    tokenGapMs: median(runs.map(medianTokenGapMs)),
  };
}

/**
 * The checks both timing suites make, each one the network's cost cannot blur, so a wrong formula
 * fails it and a slow minute of the VM does not; returns the broken ones, in words (none: the model
 * holds).
 * - The instance's own TTFT within −0.1/+3 ms: a prefill step too many or too few (±13.6 ms) and a
 *   missing queueing delay (−9 ms) fail it.
 * - The instance's own decode within −0.1/+8 ms: one decode step too few or too many fails it.
 * - The median gap between token chunks at the client one step, −1/+2 ms: the tokens really
 *   stream at that pace. One late chunk cannot move a median, and tokens sent in a burst bring it
 *   to 0. (The client's E2E − TTFT used to stand here; a first token late on the path shortens it
 *   by the delay, which failed CI once.)
 * - The client's TTFT at least the model's (−0.1 ms for the clocks): the path only adds. What it
 *   adds is printed by the suites, not bounded.
 */
export function modelTimingViolations(figures: ModelTimingFigures, model = QWEN3_14B_512_IN_64_OUT): string[] {
  const checks: [string, number, number, number][] = [
    ['instance TTFT', figures.workerTtftMs, model.ttftMs - 0.1, model.ttftMs + 3],
    ['instance decode', figures.workerDecodeMs, model.decodeMs - 0.1, model.decodeMs + 8],
    ['median token gap', figures.tokenGapMs, model.stepMs - 1, model.stepMs + 2],
    ['client TTFT', figures.clientTtftMs, model.ttftMs - 0.1, Number.POSITIVE_INFINITY],
  ];
  return checks
    .filter(([, value, low, high]) => !(value >= low && value <= high))
    .map(([what, value, low, high]) => `${what} ${value.toFixed(3)} ms is outside [${low.toFixed(3)}, ${high === Number.POSITIVE_INFINITY ? '∞' : high.toFixed(3)}] ms`);
}
