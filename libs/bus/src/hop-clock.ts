import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Stage, StageTimings } from '@sluice/contracts';

/**
 * Bus hop durations for the per-stage breakdown (`x-sluice-report-timings`): the sender stamps
 * when it handed a request on, the receiver subtracts. Stamped with the host's monotonic clock
 * (`process.hrtime`, CLOCK_MONOTONIC on Linux), which every process and container of one host
 * shares with µs resolution; the wall clock is only ms-resolved, and `performance.now()` has a
 * per-process origin that was 0.4–0.8 ms off between processes here (see clock.ts). Two hosts'
 * monotonic clocks are unrelated, so a stamp carries its host's clock id and a receiver on another
 * host leaves the hop out.
 */
const HOST_CLOCK = hostClockId();

function hostClockId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim().slice(0, 8);
  } catch {
    return hostname().slice(0, 32);
  }
}

export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** A client's send stamp for `x-sluice-sent-at`: now, on this host's monotonic clock. */
export function sendStamp(atMs: number = monotonicMs()): string {
  return `${atMs.toFixed(3)}@${HOST_CLOCK}`;
}

/** ms from a stamp read on `clock` to `nowMs`, or undefined when the stamp is from another host. */
export function msSinceStamp(atMs: number, clock: string, nowMs: number = monotonicMs()): number | undefined {
  return clock === HOST_CLOCK ? Math.max(0, nowMs - atMs) : undefined;
}

/** The sender's half: the request (or the end frame) leaves now. */
export function stampSent(timings: StageTimings, atMs: number = monotonicMs()): void {
  timings.sentAtMs = atMs;
  timings.sentOn = HOST_CLOCK;
}

/**
 * ms since the stamp, or undefined when there is none or it was made on another host; the stamp is
 * removed. Set to undefined (which JSON leaves out) rather than deleted: a `delete` turns the object
 * into a slow dictionary for every later read and write, and this runs at every stage's door
 * (`takeHopMs` was about 2% of the flow controller's busy time in a CPU profile at 1,000 requests/s).
 */
export function takeHopMs(timings: StageTimings): number | undefined {
  const { sentAtMs, sentOn } = timings;
  timings.sentAtMs = undefined;
  timings.sentOn = undefined;
  if (sentAtMs === undefined || sentOn !== HOST_CLOCK) return undefined;
  return Math.max(0, monotonicMs() - sentAtMs);
}

const HOP_INTO: Readonly<Record<Stage, keyof StageTimings | undefined>> = {
  gateway: undefined,
  admission: 'toAdmissionMs',
  flow: 'toFlowMs',
  router: 'toRouterMs',
  worker: 'toWorkerMs',
};

/** The receiver's half, at a stage's door: records the hop into `stage`. */
export function recordHopInto(stage: Stage, timings: StageTimings): void {
  const hop = takeHopMs(timings);
  const field = HOP_INTO[stage];
  if (hop !== undefined && field !== undefined) (timings as Record<string, number>)[field] = hop;
}
