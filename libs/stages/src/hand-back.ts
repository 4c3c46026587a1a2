import type { MigrationReason, ResumeStage } from '@sluice/contracts';

/**
 * A request a stage gives back to the gateway that owns it, instead of ending it: the next stage
 * had no responder or did not ack in time (a restart, a freeze), or this stage is shutting down
 * with the request queued. The gateway re-submits it at `resumeAt` as a new attempt (docs/behaviour.md §6).
 */
export interface HandBack {
  readonly resumeAt: ResumeStage;
  readonly reason: MigrationReason;
  readonly message: string;
}

/**
 * Whether a refused handoff is worth a hand-back: no responder (the next stage is restarting or
 * gone) or no ack in time (it is frozen or overloaded; a copy it takes later is an old attempt that
 * stages no longer serve). A nack (the message failed validation) or a closed connection is not.
 */
export type HandoffFailure = 'no_responders' | 'timeout' | 'nack' | 'closed';

export function worthHandingBack(why: HandoffFailure): boolean {
  return why === 'no_responders' || why === 'timeout';
}

/**
 * Whether a handoff that was not acked may still be taken: no ack in time (the receiver may be
 * frozen with the copy in its socket, or its ack was lost) or a connection that closed after the
 * copy went out. Such an attempt is never sent anywhere again: a frozen receiver that wakes would
 * run it beside the retry. No responder (no process had a subscription) or a nack: nobody has it.
 */
export function copyMayBeTaken(why: HandoffFailure): boolean {
  return why === 'timeout' || why === 'closed';
}
