import { cancelledAs, micros, type CancelRequest, type MigrationReason, type OutcomeReason, type ResumeStage, type Stage } from '@sluice/contracts';
import { Custody, HANDOFF_RETRY, UNAVAILABLE_AT, costRefusal, endReasonWhenSpent, nextHandoffPauseMs, resubmitPauseMs, type TokenLimits, type WorkerCompletion } from '@sluice/stages';
import type { BlockHasher } from './block-ids.js';
import { tokenTimesOf } from './client-records.js';
import { nextAttempt, type Flight } from './flight.js';
import type { StepTimes } from './step-times.js';
import type { World } from './world.js';

export interface TwinGatewaySettings {
  readonly model: { readonly name: string; readonly maxModelLen: number };
  /** The live gateway's token caps (gateway.limits): the same refusals at the door. */
  readonly limits: TokenLimits;
  /** Re-submissions allowed per request (gateway.migrationLimit). */
  readonly migrationLimit: number;
  /** The request's deadline is modelled (chaos runs): at `deadlineUs` it ends with 504 where it stands. */
  readonly deadlines: boolean;
  /** How long the gateway keeps trying a stage that does not ack: two heartbeat timeouts, as live. */
  readonly resubmitWindowUs: number;
  readonly blockHasher: BlockHasher;
}

/** One re-submission: the request, its new attempt, why, when (virtual ms), and the tokens the client already had. */
export interface Migration {
  readonly requestId: string;
  readonly attempt: number;
  readonly reason: MigrationReason;
  readonly atMs: number;
  readonly tokensSent: number;
  /** The instance or stage that lost it or handed it back. */
  readonly from: string;
}

/** The gateway's own handoffs are tried again while the stage does not ack, on the live gateway's schedule (HANDOFF_RETRY). */
const FIRST_PAUSE_US = HANDOFF_RETRY.firstPauseMs * 1000;

/**
 * The stage a live client's record names for the endings the gateway gives itself (the CLI's
 * apps/cli/src/run/outcome-of-answer.ts reads them off the reason; stage_lost names none).
 */
const RECORD_STAGE: Partial<Record<OutcomeReason, Stage>> = {
  timeout: 'gateway',
  admission_unavailable: 'admission',
  flow_unavailable: 'flow',
  router_unavailable: 'router',
  worker_unreachable: 'router',
  worker_lost: 'worker',
};

/**
 * The synthetic model says the same ten words in turn (apps/gateway/src/prompt.ts), so the i-th
 * output token is the same for every request: what a migrated prompt's blocks must reproduce for
 * prefix-cache hits to match the live cluster's. The ids differ from the gateway's tokenizer's;
 * only their equality matters (block-ids.ts).
 */
const OUTPUT_WORDS = 10;
const OUTPUT_TOKEN_BASE = 0x7fff_0000;

/**
 * The twin's gateway: the client's side of every request. It owns each request until its record
 * is written (the libs/stages Custody: current attempt, migration limit), re-submits a request its
 * holder lost or handed back as a new attempt with the tokens already sent appended to its prompt
 * (as apps/gateway's CustodyOnBus does), tries its own handoffs again while a stage does not ack,
 * and, in chaos runs, ends a request at its deadline. A record is written once, for the current
 * attempt: whatever a stale attempt still sends is dropped, as the live gateway drops frames of
 * attempts it replaced.
 */
export class TwinGateway {
  private readonly custody: Custody;
  /** The current attempt of each request re-submitted at least once (the others' is their first). */
  private readonly latest = new Map<string, Flight>();
  readonly migrations: Migration[] = [];

  constructor(
    private readonly world: World,
    private readonly settings: TwinGatewaySettings,
  ) {
    // The twin's gateway hears of lost holders from the router (instanceLost) and the stages'
    // hand-backs, not by its own heartbeat sweep, so the custody's timeout is never consulted.
    this.custody = new Custody({ heartbeatTimeoutUs: micros(Number.POSITIVE_INFINITY), migrationLimit: settings.migrationLimit });
  }

  /** The client's request reached the gateway: its own checks, its deadline (chaos runs), then the handoff to admission. */
  receive(flight: Flight): void {
    const { world } = this;
    const now = world.queue.nowUs;
    const refusal = costRefusal(flight.inputTokens, flight.maxTokens, this.settings.model, this.settings.limits);
    if (refusal !== undefined) {
      // The gateway answers 400 itself: its own time is the whole round trip.
      this.fail(flight, now + world.hops.gatewayUs, refusal.reason, 'gateway');
      return;
    }
    if (this.settings.deadlines) world.queue.at(flight.deadlineUs, 'deadline', () => this.deadline(flight));
    this.handOn(flight, 'admission', now + world.hops.gatewayUs);
  }

  /** A stage's error answer, or the worker's, reached the client at `clientUs` (after any tokens it had). */
  fail(flight: Flight, clientUs: number, reason: OutcomeReason, stage: Stage | undefined): void {
    if (!this.settle(flight)) return;
    const tokens = flight.earlierTokensMs !== undefined || flight.runLength > 0 ? this.tokensOf(flight) : undefined;
    this.world.records.failed(flight, clientUs, reason, stage, tokens);
  }

  completed(flight: Flight, completion: WorkerCompletion, clientUs: number, instanceId: string, steps: StepTimes): void {
    if (this.settle(flight)) this.world.records.completed(flight, completion, clientUs, instanceId, steps);
  }

  /** A migrate frame (a lost instance, a hand-back) reaches the gateway at `atUs`; `stage` is the one that held the attempt. */
  migrateLater(flight: Flight, atUs: number, reason: MigrationReason, resumeAt: ResumeStage, stage: Stage, from: string = stage): void {
    this.world.queue.at(atUs, 'gateway', () => this.migrate(flight, reason, resumeAt, stage, from));
  }

  /** Re-submissions by reason. */
  migrationsByReason(): Record<string, number> {
    const byReason: Record<string, number> = {};
    for (const m of this.migrations) byReason[m.reason] = (byReason[m.reason] ?? 0) + 1;
    return byReason;
  }

  /**
   * Re-submits the attempt's request as the next attempt where it stood, or ends it as lost when
   * the migration limit is spent. A report about an attempt already replaced or ended (the router's
   * deregistration after the drain's hand-back) changes nothing.
   */
  private migrate(flight: Flight, reason: MigrationReason, resumeAt: ResumeStage, stage: Stage, from: string): void {
    if (flight.settled) return;
    const { world } = this;
    // Custody of a request opens when something first gives it back: until then its attempt is
    // 0 and there is nothing to know (a million requests cost no map entries in a run without faults).
    if (this.custody.attemptOf(flight.id) === undefined) this.custody.open(flight.id);
    const verdict = this.custody.migrate(flight.id, flight.attempt);
    if (verdict.kind === 'ignored') return;
    const now = world.queue.nowUs;
    if (verdict.kind === 'exhausted') {
      const ending = endReasonWhenSpent(reason, stage, resumeAt);
      this.fail(flight, now + this.toClientUs(), ending, RECORD_STAGE[ending]);
      return;
    }
    const tokensMs = this.tokensOf(flight);
    const sent = tokensMs.length;
    // A request's last token and its end come out of the same step, so an attempt that sent them
    // all has completed: it cannot be lost with every token sent (the live gateway ends it then).
    if (sent >= flight.request.maxTokens) throw new Error(`${flight.id} was handed back with all ${sent} tokens sent`);
    flight.settled = true;
    this.cancel(flight, 'superseded');
    const next = nextAttempt(flight, { attempt: verdict.attempt, tokensMs, blockHashes: sent > 0 ? this.blockHashesWithOutput(flight, sent) : flight.blockHashes });
    this.latest.set(flight.id, next);
    this.migrations.push({ requestId: flight.id, attempt: verdict.attempt, reason, atMs: now / 1000, tokensSent: sent, from });
    // Handed back for want of the next stage: a moment (doubling) before trying again, as live.
    const pauseUs = resubmitPauseMs(reason, verdict.migrations) * 1000;
    if (pauseUs === 0) this.handOn(next, resumeAt, now);
    else world.queue.at(now + pauseUs, 'gateway', () => this.handOn(next, resumeAt, world.queue.nowUs));
  }

  /** Hands an attempt to a stage; while the stage does not ack, tries again with backoff until the window closes, then ends it. */
  private handOn(flight: Flight, stage: ResumeStage, sendUs: number, firstUs = sendUs, pauseUs = FIRST_PAUSE_US): void {
    const { world } = this;
    world.handOff(
      flight,
      stage,
      sendUs,
      () => this.deliver(flight, stage),
      () => {
        if (flight.settled) return;
        const now = world.queue.nowUs;
        if (now + pauseUs > firstUs + this.settings.resubmitWindowUs) {
          this.fail(flight, now + this.toClientUs(), UNAVAILABLE_AT[stage], RECORD_STAGE[UNAVAILABLE_AT[stage]]);
          return;
        }
        world.queue.at(now + pauseUs, 'gateway', () => {
          if (!flight.settled) this.handOn(flight, stage, world.queue.nowUs, firstUs, nextHandoffPauseMs(pauseUs / 1000) * 1000);
        });
      },
    );
  }

  /** The handoff reaches the stage's queue group, which gives it to one replica. */
  private deliver(flight: Flight, stage: ResumeStage): void {
    const { world } = this;
    switch (stage) {
      case 'admission':
        return world.admission.pick().submit(flight, world.nowUs, undefined);
      case 'flow':
        return world.flow.pick().submit(flight, world.nowUs, undefined);
      case 'router':
        return world.router.pick().route(flight, world.nowUs, undefined);
    }
  }

  /** The deadline passed with the request still open: 504, and the attempt is cancelled wherever it is. */
  private deadline(first: Flight): void {
    const current = this.latest.get(first.id) ?? first;
    if (current.settled) return;
    this.fail(current, this.world.queue.nowUs + this.toClientUs(), 'timeout', 'gateway');
    this.cancel(current, 'timeout');
  }

  /**
   * A cancel for the attempt reaches the stages one transit later: flow control's queues (a
   * deadline; every replica hears it, the one that queued the request evicts it) and its instance.
   */
  private cancel(flight: Flight, reason: CancelRequest['reason']): void {
    const { world } = this;
    world.queue.at(world.queue.nowUs + world.hops.transitUs, 'gateway', () => {
      if (reason === 'timeout') {
        const cancel = { requestId: flight.id, reason, attempt: flight.attempt };
        world.gates.flow.pass(() => {
          for (const flow of world.flow.replicas) flow.onCancel(cancel, world.nowUs);
        });
      }
      const instance = world.instanceList[flight.servedBy];
      if (instance && instance.process.state !== 'gone' && instance.core.holding(flight.id) === flight) instance.core.cancel(flight.id, cancelledAs(reason), world.nowUs);
    });
  }

  /** Ends the request's custody; false if this attempt is stale or the request already ended. */
  private settle(flight: Flight): boolean {
    if (flight.settled) return false;
    flight.settled = true;
    this.custody.close(flight.id);
    if (this.latest.size > 0) this.latest.delete(flight.id);
    return true;
  }

  /** Every token the client has of the request so far, in ms: earlier attempts', then this one's. */
  private tokensOf(flight: Flight): number[] {
    return tokenTimesOf(flight, this.world.instanceList[flight.servedBy]?.steps);
  }

  /** The prompt with the first `sent` output tokens appended, as block hashes. */
  private blockHashesWithOutput(flight: Flight, sent: number): number[] {
    const prompt = flight.request.inputTokens;
    const ids = new Uint32Array(prompt.length + sent);
    ids.set(prompt);
    for (let i = 0; i < sent; i++) ids[prompt.length + i] = OUTPUT_TOKEN_BASE + (i % OUTPUT_WORDS);
    return this.settings.blockHasher(ids);
  }

  /** An answer of the gateway's own reaches the client: the way back without the transit to the gateway. */
  private toClientUs(): number {
    return Math.max(0, this.world.hops.returnUs - this.world.hops.transitUs);
  }
}
