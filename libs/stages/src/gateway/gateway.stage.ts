import { micros, type HeldFrame, type Micros, type MigrateFrame, type OutcomeReason, type ResumeStage, type Stage } from '@sluice/contracts';
import { expirySweepIntervalUs } from '@sluice/policies';
import { copyMayBeTaken, type HandoffFailure } from '../hand-back.js';
import { Periodic, type WakeUps } from '../wake-ups.js';
import { Custody } from './custody.js';
import type { Completion, GatewayEffects, GatewayFailure, GatewayRequest, Reattempt } from './gateway.effects.js';
import { deadlineOf, type GatewaySettings } from './gateway.settings.js';
import { HANDOFF_RETRY, UNAVAILABLE_AT, endReasonWhenSpent, nextHandoffPauseMs, resubmitPauseMs, resumeStageAfter } from './migration-rules.js';
import { RequestTimers, type DueTimer } from './request-timers.js';
import { retryAfterSecondsOf } from './retry-after.js';

/**
 * `deadline`: a request's deadline; `retry`: a handoff tried again after a stage did not ack;
 * `resubmit`: a request handed back for want of its next stage, sent again after a pause;
 * `sweep`: holders silent past the heartbeat timeout; `outage`: the gateway's own bus connection
 * down for a heartbeat timeout.
 */
export type GatewayWakeUp = 'deadline' | 'retry' | 'resubmit' | 'sweep' | 'outage';

/** Timers of requests that ended are dropped once there are this many more of them than open requests. */
const PRUNE_SLACK = 1_024;

/** One open request: its current attempt and what the client has of it. */
class OpenRequest<R, C> {
  /** Tokens the client had when the current attempt began: that attempt's tokens count from there. */
  attemptBase = 0;
  /** Tokens the client has. */
  delivered = 0;
  /** The current attempt's handoff while a stage may still not ack it: where, since when, the next pause. */
  handoff: { readonly stage: ResumeStage; readonly firstUs: Micros; pauseUs: number } | undefined = undefined;
  /** Where the current attempt goes once its re-submission pause is over. */
  resubmitAt: ResumeStage | undefined = undefined;
  /** Since when, and how often, the request was handed back for want of its next stage (until a worker holds it). */
  unavailable: { readonly sinceUs: Micros; count: number } | undefined = undefined;

  constructor(
    public request: R,
    readonly carried: C,
    /** The first attempt's prompt and `max_tokens`: every attempt's numbers count from them. */
    readonly inputTokens: number,
    readonly maxTokens: number,
    readonly stream: boolean,
  ) {}
}

/**
 * The gateway's request lifecycle (docs/behaviour.md §6): it owns each request from its arrival
 * until its one terminal outcome. It hands the request to admission, trying again with backoff
 * while admission does not ack; turns the current attempt's frames into tokens for the client
 * (each once, whatever is duplicated or lost) and one ending; follows who holds the request and
 * re-submits it as a new attempt, with the tokens already sent appended to its prompt, when its
 * holder is lost or hands it back (Dynamo's migration), up to the migration limit; ends it at its
 * deadline; and cancels every copy downstream when it ends other than by its last token.
 * Pure: the caller passes the time of every call.
 */
export class GatewayStage<R extends GatewayRequest, C, E> {
  private readonly open = new Map<string, OpenRequest<R, C>>();
  private readonly custody: Custody;
  private readonly timers: RequestTimers<GatewayWakeUp>;
  private readonly sweep: Periodic<GatewayWakeUp> | undefined;
  /** Since when the gateway's own bus connection is down (undefined: it is up). */
  private busDownSinceUs: Micros | undefined = undefined;

  constructor(
    private readonly settings: GatewaySettings,
    private readonly effects: GatewayEffects<R, C, E>,
    private readonly wakeUps: WakeUps<GatewayWakeUp>,
    private readonly reattempt: Reattempt<R, C>,
  ) {
    this.custody = new Custody({ heartbeatTimeoutUs: settings.heartbeatTimeoutUs, migrationLimit: settings.migrationLimit });
    this.timers = new RequestTimers(wakeUps);
    // A driver that never judges holders by their silence (the twin hears of every loss) sweeps nothing.
    this.sweep = Number.isFinite(settings.heartbeatTimeoutUs) ? new Periodic<GatewayWakeUp>('sweep', expirySweepIntervalUs(settings.heartbeatTimeoutUs), wakeUps) : undefined;
  }

  /** Starts the sweep for silent holders. */
  start(nowUs: Micros): void {
    this.sweep?.start(nowUs);
  }

  stop(): void {
    this.sweep?.stop();
  }

  /** Open requests: taken and not yet ended. */
  get openCount(): number {
    return this.open.size;
  }

  /** The deadline the driver writes on the wire: the one this core enforces. */
  deadlineOf(arrivalUs: Micros, stream: boolean): Micros {
    return deadlineOf(this.settings, arrivalUs, stream).atUs;
  }

  /**
   * A request the gateway took (its door's checks passed), with its deadline on it: owned from now
   * until its terminal outcome; handed to admission.
   */
  receive(request: R, carried: C, nowUs: Micros, stream = false): void {
    const entry = new OpenRequest(request, carried, request.inputTokens, request.maxTokens, stream);
    this.open.set(request.id, entry);
    this.custody.open(request.id);
    if (this.busOutageOver(nowUs)) {
      this.finish(entry, { reason: 'stage_lost', message: this.outageMessage(nowUs), stage: undefined }, nowUs);
      return;
    }
    if (Number.isFinite(request.deadlineUs)) this.timers.add('deadline', request.id, request.attempt, request.deadlineUs);
    this.handOn(entry, 'admission', nowUs);
  }

  /**
   * A handoff of the gateway's own (to admission, or a re-submission) was not acked: no responder
   * (a restart), no ack in time (a freeze) or a closed connection are tried again with backoff until
   * the window closes; a nack (the stage refused the message) is final. A copy that got no ack in
   * time, or went out on a connection that closed, may still be taken (a frozen replica wakes with
   * it in its socket, after another replica took the retry): it is never sent again. The retry is
   * a new attempt, and the old one is cancelled everywhere, so the copy is stale wherever it lands.
   */
  handoffRefused(requestId: string, attempt: number, why: HandoffFailure, message: string, nowUs: Micros): void {
    const entry = this.current(requestId, attempt);
    const handoff = entry?.handoff;
    if (entry === undefined || handoff === undefined) return;
    const reason = UNAVAILABLE_AT[handoff.stage];
    if (why === 'nack' || nowUs + handoff.pauseUs > handoff.firstUs + this.settings.resubmitWindowUs) {
      this.finish(entry, { reason, message, stage: undefined }, nowUs);
      return;
    }
    const retried = copyMayBeTaken(why) ? this.supersede(entry, nowUs) : attempt;
    this.timers.add('retry', requestId, retried, micros(nowUs + handoff.pauseUs));
    handoff.pauseUs = nextHandoffPauseMs(handoff.pauseUs / 1000) * 1000;
  }

  /** A stage took the current attempt: it holds it now, and the handoff is done whatever became of its ack. */
  onHeld(frame: Pick<HeldFrame, 'requestId' | 'attempt' | 'stage' | 'holder'>, nowUs: Micros): void {
    const entry = this.current(frame.requestId, frame.attempt);
    if (entry === undefined) return;
    entry.handoff = undefined;
    // A worker took it: the next stage's absence, if it comes again, is a new one.
    if (frame.stage === 'worker') entry.unavailable = undefined;
    if (this.custody.held(frame, nowUs) === 'second copy') {
      // Each process's ledger serves an attempt once; only the gateway sees two processes run it.
      this.effects.cancel(entry.request, { requestId: frame.requestId, reason: 'superseded', attempt: frame.attempt, holder: frame.holder }, nowUs);
      return;
    }
    this.effects.held(entry.request, entry.carried, frame.stage, frame.holder);
  }

  /**
   * Tokens of the current attempt: `generated` says how many the attempt has made so far, so the
   * client gets what it lacks (a duplicate frame adds nothing, a lost one is made up); without it,
   * `count` more.
   */
  onTokens(requestId: string, attempt: number, count: number, generated: number | undefined, nowUs: Micros): void {
    const entry = this.current(requestId, attempt);
    if (entry === undefined) return;
    this.deliver(entry, generated === undefined ? count : entry.attemptBase + generated - entry.delivered, nowUs);
  }

  /** The current attempt completed with `outputTokens` in all: the client gets any it still lacks, then the end. */
  onEnd(requestId: string, attempt: number, outputTokens: number, end: E, nowUs: Micros): void {
    const entry = this.current(requestId, attempt);
    if (entry === undefined) return;
    this.deliver(entry, entry.attemptBase + outputTokens - entry.delivered, nowUs);
    this.complete(entry, { end }, nowUs);
  }

  /**
   * A stage ended the current attempt (its error frame). `retryAfterMs` is the deciding rule's
   * estimate of when a retry would pass (a token bucket's refill), if it had one.
   */
  onError(requestId: string, attempt: number, reason: OutcomeReason, message: string, stage: Stage, nowUs: Micros, retryAfterMs?: number): void {
    const entry = this.current(requestId, attempt);
    if (entry !== undefined) this.finish(entry, { reason, message, stage, retryAfterS: retryAfterSecondsOf(reason, retryAfterMs) }, nowUs);
  }

  /** A stage handed the request back, or the router reports its instance lost (a `migrate` frame). */
  onMigrate(frame: Pick<MigrateFrame, 'requestId' | 'attempt' | 'reason' | 'resumeAt' | 'holder'>, nowUs: Micros): void {
    this.migrate(frame.requestId, frame.attempt, frame.reason, frame.resumeAt, frame.holder, nowUs);
  }

  /** The client went away: nothing can be answered; the outcome is still counted, and every copy let go. */
  clientGone(requestId: string, nowUs: Micros): void {
    const entry = this.open.get(requestId);
    if (entry !== undefined) this.finish(entry, { reason: 'client_disconnected', message: 'the client closed the connection', stage: undefined }, nowUs);
  }

  /** A heartbeat (presence, an instance's lifecycle event) from a holder. */
  heard(holder: string, nowUs: Micros): void {
    this.custody.heard(holder, nowUs);
  }

  /**
   * The gateway's bus connection is down: no holder can be judged by its silence. Nothing reaches
   * any stage or comes back from one meanwhile: if it is still down after a heartbeat timeout (the
   * time a stage's loss is given to show), every open request ends with `stage_lost` and says why,
   * and so does every request taken until it is back, rather than waiting for its deadline.
   */
  suspendExpiry(nowUs?: Micros): void {
    this.custody.suspend();
    if (nowUs === undefined || this.busDownSinceUs !== undefined || !Number.isFinite(this.settings.heartbeatTimeoutUs)) return;
    this.busDownSinceUs = nowUs;
    this.wakeUps.wakeAt('outage', micros(nowUs + this.settings.heartbeatTimeoutUs));
  }

  /**
   * The connection is back: every holder counts as heard now, and every open request is re-submitted
   * where it stood, since frames sent to the gateway meanwhile may be lost. Returns how many.
   */
  resumeExpiry(nowUs: Micros): number {
    this.busDownSinceUs = undefined;
    const open = this.custody.resume(nowUs);
    for (const request of open) this.migrate(request.requestId, request.attempt, request.reason, resumeStageAfter(request.stage), 'gateway', nowUs);
    return open.length;
  }

  /** The gateway is stopping and its grace period is over: whatever is still open ends as `shutdown`. Returns how many. */
  shutdown(nowUs: Micros): number {
    const open = [...this.open.values()];
    for (const entry of open) this.finish(entry, { reason: 'shutdown', message: 'the gateway is shutting down', stage: undefined }, nowUs);
    this.stop();
    this.timers.clear();
    return open.length;
  }

  wake(kind: GatewayWakeUp, atUs: Micros, nowUs: Micros = atUs): void {
    if (kind === 'sweep') {
      if (this.sweep?.due(atUs)) this.sweepSilent(nowUs);
      return;
    }
    if (kind === 'outage') {
      // A wake-up of an outage that ended (and maybe another that began since) is stale.
      if (this.busDownSinceUs !== undefined && atUs === this.busDownSinceUs + this.settings.heartbeatTimeoutUs) this.endAllForOutage(nowUs);
      return;
    }
    for (const timer of this.timers.due(kind, atUs, nowUs)) {
      if (!this.wanted(kind, timer)) continue;
      const entry = this.open.get(timer.requestId)!;
      switch (kind) {
        case 'deadline': {
          // The deadline is the request's, whichever attempt is under way.
          const { reason, message } = deadlineOf(this.settings, entry.request.arrivalUs, entry.stream);
          this.finish(entry, { reason, message, stage: undefined }, nowUs);
          break;
        }
        case 'retry':
          if (entry.handoff !== undefined) this.effects.handOn(entry.request, entry.carried, entry.handoff.stage, nowUs);
          break;
        case 'resubmit':
          if (entry.resubmitAt !== undefined) {
            const stage = entry.resubmitAt;
            entry.resubmitAt = undefined;
            this.handOn(entry, stage, nowUs);
          }
          break;
      }
    }
  }

  /** The bus has been down past its grace: nothing open can go on, so everything ends now with the reason. */
  private endAllForOutage(nowUs: Micros): void {
    const message = this.outageMessage(nowUs);
    for (const entry of [...this.open.values()]) this.finish(entry, { reason: 'stage_lost', message, stage: undefined }, nowUs);
  }

  private busOutageOver(nowUs: Micros): boolean {
    return this.busDownSinceUs !== undefined && nowUs >= this.busDownSinceUs + this.settings.heartbeatTimeoutUs;
  }

  private outageMessage(nowUs: Micros): string {
    return `the gateway has had no connection to the bus for ${Math.round((nowUs - (this.busDownSinceUs ?? nowUs)) / 1000)} ms: no stage can take or continue the request`;
  }

  /** Requests whose holder went silent are re-submitted where they stood. */
  private sweepSilent(nowUs: Micros): void {
    const lost = this.custody.lost(nowUs);
    if (lost.length === 0) return;
    const byHolder = new Map<string, { stage: Stage; requestIds: string[] }>();
    for (const { holder, stage, requestId } of lost) {
      const group = byHolder.get(holder) ?? { stage, requestIds: [] };
      group.requestIds.push(requestId);
      byHolder.set(holder, group);
    }
    for (const [holder, { stage, requestIds }] of byHolder) this.effects.holderSilent(holder, stage, requestIds);
    for (const { requestId, attempt, holder, stage } of lost) this.migrate(requestId, attempt, stage === 'worker' ? 'worker_lost' : 'stage_lost', resumeStageAfter(stage), holder, nowUs);
  }

  private migrate(requestId: string, attempt: number, reason: MigrateFrame['reason'], resumeAt: ResumeStage, holder: string, nowUs: Micros): void {
    const entry = this.open.get(requestId);
    if (entry === undefined || entry.request.attempt !== attempt) return;
    const stage = this.custody.holderOf(requestId)?.stage;
    const sent = entry.delivered;
    // Handed back for want of the next stage: tried again, as the gateway's own handoffs are, for as
    // long as their window lasts (a restart of every worker fits in it), whatever the migration limit.
    const absent = reason === 'next_unavailable';
    if (absent) {
      const streak = (entry.unavailable ??= { sinceUs: nowUs, count: 0 });
      streak.count += 1;
      if (nowUs + resubmitPauseMs(reason, streak.count) * 1000 > streak.sinceUs + this.settings.resubmitWindowUs) {
        const message = `${holder} found no ${resumeAt === 'router' && stage === 'router' ? 'worker instance' : 'stage'} to take the request for ${Math.round((nowUs - streak.sinceUs) / 1000)} ms`;
        this.finish(entry, { reason: endReasonWhenSpent(reason, stage, resumeAt), message, stage: undefined }, nowUs);
        return;
      }
    }
    const verdict = this.custody.migrate(requestId, attempt, !absent);
    if (verdict.kind === 'ignored') return;
    if (verdict.kind === 'exhausted') {
      const message = `${holder} lost the request (${reason}) after ${sent} tokens, and the migration limit (${verdict.migrations}) is spent`;
      this.finish(entry, { reason: endReasonWhenSpent(reason, stage, resumeAt), message, stage: undefined }, nowUs);
      return;
    }
    const previous = entry.request;
    this.effects.migrated(previous, entry.carried, { reason, from: holder, resumeAt, attempt: verdict.attempt, tokensSent: sent }, nowUs);
    // The replaced attempt stops wherever it still runs, and is not served if it arrives late.
    this.effects.cancel(previous, { requestId, reason: 'superseded', attempt: verdict.attempt - 1 }, nowUs);
    if (sent >= entry.maxTokens) {
      // Every token reached the client; only the end was lost with its holder.
      this.complete(entry, { lostWith: holder }, nowUs);
      return;
    }
    entry.attemptBase = sent;
    entry.handoff = undefined;
    entry.resubmitAt = undefined;
    entry.request = this.reattempt(previous, entry.carried, { attempt: verdict.attempt, outputTokens: sent, inputTokens: entry.inputTokens + sent, maxTokens: entry.maxTokens - sent });
    // Handed back because the next stage was absent: give it a moment (doubling) before trying again.
    const pauseUs = resubmitPauseMs(reason, entry.unavailable?.count ?? 0) * 1000;
    if (pauseUs === 0) {
      this.handOn(entry, resumeAt, nowUs);
      return;
    }
    entry.resubmitAt = resumeAt;
    this.timers.add('resubmit', requestId, verdict.attempt, micros(nowUs + pauseUs));
  }

  /** The request goes on as a new attempt (same numbers), and every copy of the old one is let go. Returns the new attempt. */
  private supersede(entry: OpenRequest<R, C>, nowUs: Micros): number {
    const previous = entry.request;
    const attempt = this.custody.supersede(previous.id)!;
    this.effects.cancel(previous, { requestId: previous.id, reason: 'superseded', attempt: previous.attempt }, nowUs);
    const sent = entry.delivered;
    entry.attemptBase = sent;
    entry.request = this.reattempt(previous, entry.carried, { attempt, outputTokens: sent, inputTokens: entry.inputTokens + sent, maxTokens: entry.maxTokens - sent });
    return attempt;
  }

  private handOn(entry: OpenRequest<R, C>, stage: ResumeStage, nowUs: Micros): void {
    entry.handoff = { stage, firstUs: nowUs, pauseUs: HANDOFF_RETRY.firstPauseMs * 1000 };
    this.effects.handOn(entry.request, entry.carried, stage, nowUs);
  }

  private deliver(entry: OpenRequest<R, C>, count: number, nowUs: Micros): void {
    if (count <= 0) return;
    entry.delivered += count;
    this.effects.tokens(entry.request, entry.carried, count, nowUs);
  }

  private complete(entry: OpenRequest<R, C>, completion: Completion<E>, nowUs: Micros): void {
    this.close(entry);
    this.effects.complete(entry.request, entry.carried, completion, nowUs);
  }

  /** Ended other than by its last token: the answer, then every copy downstream lets it go. */
  private finish(entry: OpenRequest<R, C>, failure: GatewayFailure, nowUs: Micros): void {
    this.close(entry);
    // Every 429 and 503 says when to come back: the stage's estimate, else the default.
    const retryAfterS = failure.retryAfterS ?? retryAfterSecondsOf(failure.reason);
    this.effects.fail(entry.request, entry.carried, { ...failure, retryAfterS }, nowUs);
    const { reason } = failure;
    this.effects.cancel(entry.request, { requestId: entry.request.id, reason: reason === 'client_disconnected' || reason === 'timeout' ? reason : 'ended' }, nowUs);
  }

  private close(entry: OpenRequest<R, C>): void {
    const { id } = entry.request;
    this.open.delete(id);
    this.custody.close(id);
    if (this.timers.size > 2 * this.open.size + PRUNE_SLACK) this.timers.prune((kind, timer) => this.wanted(kind, timer));
  }

  /** The request's current attempt, if the request is still open and `attempt` is it. */
  private current(requestId: string, attempt: number): OpenRequest<R, C> | undefined {
    const entry = this.open.get(requestId);
    return entry !== undefined && entry.request.attempt === attempt ? entry : undefined;
  }

  /** A deadline is wanted while its request is open; a retry or a re-submission while its attempt is the current one. */
  private wanted(kind: GatewayWakeUp, timer: DueTimer): boolean {
    return kind === 'deadline' ? this.open.has(timer.requestId) : this.current(timer.requestId, timer.attempt) !== undefined;
  }
}
