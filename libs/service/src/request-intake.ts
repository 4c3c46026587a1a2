import { epochMicros, recordHopInto, sendHeldFrame, sendMigrateFrame } from '@sluice/bus';
import { AttemptLedger } from '@sluice/collections';
import { microsFromMillis, type CancelRequest, type InferenceRequest, type MigrationReason, type ResumeStage, type Stage } from '@sluice/contracts';
import type { ServiceContext } from './service-context.js';

/** How long a cancel for a request this process never saw is remembered: a request's whole life. */
const TOMBSTONE_MS = 120_000;

/**
 * Where a request enters a stage process (docs/behaviour.md §6): each attempt of a live request is
 * served once (a duplicated handoff, a superseded attempt, one cancelled or past its deadline is
 * not), and the gateway that owns it is told who holds it now (a `held` frame, unless the ack
 * already told it), so it can re-submit it if this process is lost. Cancels feed the same ledger, including those that arrive first.
 */
export class RequestIntake {
  /** Nothing is remembered past a request's whole life, whatever deadline its sender wrote. */
  private readonly ledger = new AttemptLedger(microsFromMillis(TOMBSTONE_MS), microsFromMillis(TOMBSTONE_MS));

  constructor(
    private readonly service: ServiceContext,
    private readonly stage: Stage,
    /** False for a stage whose ack already named it the holder (admission): no `held` frame. */
    private readonly options: { readonly heldFrame: boolean } = { heldFrame: true },
  ) {}

  /**
   * Whether to serve this copy (`serve`), and whether an older attempt of it came here before
   * (`supersede`: drop that one first if still held); when served, its gateway learns that `holder`
   * has it. Anything else: not served.
   */
  take(request: InferenceRequest, holder: string = this.service.instanceId): 'serve' | 'supersede' | false {
    const arrival = this.ledger.arrive(request.id, request.attempt, request.deadlineUs, epochMicros());
    if (arrival !== 'serve' && arrival !== 'supersede') return false;
    recordHopInto(this.stage, request.timings);
    if (this.options.heldFrame) sendHeldFrame(this.service.bus, request, this.stage, holder);
    return arrival;
  }

  /**
   * Records the cancel; true when it ends the newest attempt seen here (the copy this stage may
   * hold), false when it only ends older ones (a cancel that arrived after the newer attempt).
   */
  cancel(cancel: CancelRequest): boolean {
    // A cancel of one holder's copy is for that worker instance alone (the worker applies it).
    if (cancel.holder !== undefined) return false;
    const latest = this.ledger.latestAttempt(cancel.requestId);
    this.ledger.cancel(cancel.requestId, cancel.attempt, epochMicros());
    return cancel.attempt === undefined || latest === undefined || latest <= cancel.attempt;
  }

  /** Gives the request back to its gateway, which re-submits it as a new attempt. */
  handBack(request: InferenceRequest, back: { readonly reason: MigrationReason; readonly resumeAt: ResumeStage }, holder: string = this.service.instanceId): void {
    sendMigrateFrame(this.service.bus, request, holder, back.reason, back.resumeAt);
  }
}
