import { micros, type Micros, type MigrationReason, type OutcomeReason, type ResumeStage, type Stage } from '@sluice/contracts';

/** Where a request re-enters when the holder at `stage` lost it: a worker's request is routed again. */
export function resumeStageAfter(stage: Stage | undefined): ResumeStage {
  switch (stage) {
    case 'flow':
      return 'flow';
    case 'router':
    case 'worker':
      return 'router';
    case 'admission':
    case 'gateway':
    case undefined:
      return 'admission';
  }
}

/** How a request ends when the stage it is handed to never answers (the gateway's own handoffs). */
export const UNAVAILABLE_AT = { admission: 'admission_unavailable', flow: 'flow_unavailable', router: 'router_unavailable' } as const satisfies Record<ResumeStage, OutcomeReason>;

/**
 * What a request ends as when its migration limit is spent: the next stage's unavailability when it
 * was handed back for want of one (every worker instance absent, for the router), else lost with
 * the worker or the stage that held it. `stage` is where the gateway last knew it held.
 */
export function endReasonWhenSpent(reason: MigrationReason, stage: Stage | undefined, resumeAt: ResumeStage): OutcomeReason {
  if (reason === 'next_unavailable') return resumeAt === 'router' && stage === 'router' ? 'worker_unreachable' : UNAVAILABLE_AT[resumeAt];
  return reason === 'worker_lost' || reason === 'worker_draining' || stage === 'worker' ? 'worker_lost' : 'stage_lost';
}

/** First pause before re-submitting a request handed back because the next stage was absent; it doubles up to 1 s. */
const NEXT_UNAVAILABLE_PAUSE_MS = 100;

/**
 * How long the gateway waits before re-submitting a request (its `migrations`-th re-submission):
 * handed back because the next stage was absent, a moment that doubles each time; otherwise none.
 */
export function resubmitPauseMs(reason: MigrationReason, migrations: number): number {
  return reason === 'next_unavailable' ? Math.min(NEXT_UNAVAILABLE_PAUSE_MS * 2 ** (migrations - 1), 1_000) : 0;
}

/**
 * The gateway's own handoffs (to admission, or a re-submission) are tried again while the stage does
 * not answer: the first pause, and each next one (doubling up to a second), within `handoffWindowUs`.
 */
export const HANDOFF_RETRY = { firstPauseMs: 50, maxPauseMs: 1_000, windowHeartbeats: 2, windowAckTimeouts: 2 } as const;

/**
 * How long the gateway keeps trying to hand a request on (its own handoffs, and re-submissions of
 * what came back for want of the next stage): two heartbeat timeouts, so a restart of the stage fits
 * in it, and never less than two ack timeouts, so a handoff that timed out on a frozen replica is
 * tried once more (the queue group picks a replica afresh) before the request ends.
 */
export function handoffWindowUs(heartbeatTimeoutUs: number, ackTimeoutUs: number): Micros {
  return micros(Math.max(HANDOFF_RETRY.windowHeartbeats * heartbeatTimeoutUs, HANDOFF_RETRY.windowAckTimeouts * ackTimeoutUs));
}

export function nextHandoffPauseMs(pauseMs: number): number {
  return Math.min(pauseMs * 2, HANDOFF_RETRY.maxPauseMs);
}
