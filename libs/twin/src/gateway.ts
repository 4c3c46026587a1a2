import { cancelledAs, micros, type CancelRequest, type Micros, type MigrationReason, type OutcomeReason, type ResumeStage, type Stage } from '@sluice/contracts';
import {
  GatewayStage,
  costRefusal,
  type Completion,
  type GatewayEffects,
  type GatewayFailure,
  type GatewayMigration,
  type GatewaySettings,
  type GatewayWakeUp,
  type NextAttempt,
  type TokenLimits,
  type WorkerCompletion,
} from '@sluice/stages';
import type { BlockHasher } from './block-ids.js';
import { tokenTimesOf, type ClientRecords } from './client-records.js';
import { nextAttempt, type Flight } from './flight.js';
import { gatewayToClientUs } from './hops.js';
import type { TwinNetwork } from './network.js';
import type { GatewayInbox, StageDoors } from './ports.js';
import type { StepTimes } from './step-times.js';
import type { WorkerFleet } from './worker-fleet.js';

export interface TwinGatewaySettings {
  /** The core's settings: in the twin, holders are never judged by their silence (it hears of every loss). */
  readonly core: GatewaySettings;
  readonly model: { readonly name: string; readonly maxModelLen: number };
  /** The live gateway's token caps (gateway.limits): the same refusals at the door. */
  readonly limits: TokenLimits;
  readonly blockHasher: BlockHasher;
}

/** What the twin hands the core with an end frame: what the client's record is written from. */
interface TwinEnd {
  readonly completion: WorkerCompletion;
  readonly instanceId: string;
  readonly steps: StepTimes;
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
 * The synthetic model says the same ten words in turn (libs/openai/src/prompt.ts), so the i-th
 * output token is the same for every request: what a migrated prompt's blocks must reproduce for
 * prefix-cache hits to match the live cluster's. The ids differ from the gateway's tokenizer's;
 * only their equality matters (block-ids.ts).
 */
const OUTPUT_WORDS = 10;
const OUTPUT_TOKEN_BASE = 0x7fff_0000;

/**
 * The twin's gateway: the live gateway's core (libs/stages GatewayStage: hand-on and retries,
 * custody and migration, the deadline, one ending per request) on the twin's agenda, and the
 * client's side of every request: it writes each request's record when the core ends it. No
 * gateway rule lives here, only when things arrive: a frame at the gateway one way back after its
 * sender, an answer at the client the rest of the way, a cancel at the stages one transit later.
 *
 * Two kinds of frame reach the core only when they matter, since the twin counts a request's
 * tokens on its flight and never judges a holder by its silence: a request's tokens so far, and
 * who held it, are given to the core just before a migrate frame, which is the only thing that
 * reads them.
 */
export class TwinGateway implements GatewayEffects<Flight, undefined, TwinEnd>, GatewayInbox {
  readonly migrations: Migration[] = [];
  private readonly core: GatewayStage<Flight, undefined, TwinEnd>;
  private readonly toClientUs: number;

  constructor(
    private readonly settings: TwinGatewaySettings,
    private readonly network: TwinNetwork,
    private readonly stages: StageDoors,
    private readonly workers: WorkerFleet,
    private readonly records: ClientRecords,
  ) {
    this.toClientUs = gatewayToClientUs(network.hops);
    const wakeUps = {
      // A deadline runs after everything else due at its instant (its own event kind); retries and re-submissions are the gateway's.
      wakeAt: (kind: GatewayWakeUp, atUs: Micros) => network.queue.at(atUs, kind === 'deadline' ? 'deadline' : 'gateway', () => this.core.wake(kind, atUs, network.nowUs)),
    };
    this.core = new GatewayStage(settings.core, this, wakeUps, (previous, _carried, next) => this.nextAttemptOf(previous, next));
  }

  /** The client's request reached the gateway: its own checks at the door, then the core, which hands it to admission. */
  receive(flight: Flight): void {
    const now = this.network.queue.nowUs;
    const refusal = costRefusal(flight.inputTokens, flight.maxTokens, this.settings.model, this.settings.limits);
    if (refusal !== undefined) {
      // The gateway answers 400 itself: its own time is the whole round trip.
      flight.settled = true;
      this.records.failed(flight, now + flight.hops.gatewayUs, refusal.reason, 'gateway');
      return;
    }
    this.core.receive(flight, undefined, micros(now + flight.hops.gatewayUs));
  }

  /** Re-submissions by reason. */
  migrationsByReason(): Record<string, number> {
    const byReason: Record<string, number> = {};
    for (const m of this.migrations) byReason[m.reason] = (byReason[m.reason] ?? 0) + 1;
    return byReason;
  }

  // GatewayInbox: frames reaching the gateway.

  error(flight: Flight, reason: OutcomeReason, message: string, stage: Stage, atUs: number): void {
    this.core.onError(flight.id, flight.attempt, reason, message, stage, micros(atUs));
  }

  migrate(flight: Flight, reason: MigrationReason, resumeAt: ResumeStage, stage: Stage, holder: string, atUs: number): void {
    this.network.queue.at(atUs, 'gateway', () => {
      const now = this.network.nowUs;
      this.core.onTokens(flight.id, flight.attempt, 0, generatedBy(flight), now);
      this.core.onHeld({ requestId: flight.id, attempt: flight.attempt, stage, holder }, now);
      this.core.onMigrate({ requestId: flight.id, attempt: flight.attempt, reason, resumeAt, holder }, now);
    });
  }

  end(flight: Flight, completion: WorkerCompletion, instanceId: string, steps: StepTimes, atUs: number): void {
    this.core.onEnd(flight.id, flight.attempt, generatedBy(flight), { completion, instanceId, steps }, micros(atUs));
  }

  // GatewayEffects: what the core does.

  handOn(flight: Flight, _carried: undefined, stage: ResumeStage, nowUs: Micros): void {
    const { network } = this;
    network.handOff(
      flight,
      stage,
      nowUs,
      () => this.stages[stage](flight),
      () => {
        if (!flight.settled) this.core.handoffRefused(flight.id, flight.attempt, 'timeout', `${stage} did not ack in time`, network.nowUs);
      },
    );
  }

  /** The twin's records name no holders. */
  held(): void {}

  /** The twin's tokens are on the flight (its instance's step log), read when its record is written. */
  tokens(): void {}

  complete(flight: Flight, _carried: undefined, completion: Completion<TwinEnd>, nowUs: Micros): void {
    flight.settled = true;
    // A request's last token and its end come out of the same step, so an attempt that sent them
    // all has completed: it cannot be lost with every token sent (the live gateway ends it then).
    if (!('end' in completion)) throw new Error(`${flight.id} was handed back by ${completion.lostWith} with all its tokens sent`);
    const { end } = completion;
    this.records.completed(flight, end.completion, nowUs + this.toClientUs + flight.returnExtraUs, end.instanceId, end.steps);
  }

  fail(flight: Flight, _carried: undefined, failure: GatewayFailure, nowUs: Micros): void {
    flight.settled = true;
    const tokens = flight.earlierTokensMs !== undefined || flight.runLength > 0 ? this.tokensOf(flight) : undefined;
    this.records.failed(flight, nowUs + this.toClientUs + flight.returnExtraUs, failure.reason, failure.stage ?? RECORD_STAGE[failure.reason], tokens);
  }

  /**
   * A cancel reaches the stages one transit later: flow control's queues when the deadline passed
   * (every replica hears it; the one that queued the request evicts it), and the instance still
   * holding the attempt. In the twin no other ending can leave a copy queued in flow control: no
   * client leaves, and a request a stage ended or handed back is not queued anywhere.
   */
  cancel(flight: Flight, cancel: CancelRequest, nowUs: Micros): void {
    if (cancel.reason !== 'timeout' && flight.servedBy < 0) return;
    const { network } = this;
    network.queue.at(nowUs + network.hops.transitUs, 'gateway', () => {
      if (cancel.reason === 'timeout') {
        this.stages.cancel({ requestId: flight.id, reason: cancel.reason, attempt: flight.attempt });
      }
      const instance = this.workers.servedBy(flight);
      // A cancel naming a holder is for a second copy of the attempt, which the twin never makes.
      if (cancel.holder !== undefined && instance?.core.instanceId !== cancel.holder) return;
      if (instance && instance.process.state !== 'gone' && instance.core.holding(flight.id) === flight) instance.core.cancel(flight.id, cancelledAs(cancel.reason), network.nowUs);
      // Its prefill job goes with it (the live workers cancel every copy of the attempt).
      const prefill = flight.prefillInstanceId === undefined ? undefined : this.workers.instances.get(flight.prefillInstanceId);
      if (prefill && prefill.process.state !== 'gone' && prefill.core.holding(flight.id)?.attempt === flight.attempt) prefill.core.cancel(flight.id, cancelledAs(cancel.reason), network.nowUs);
    });
  }

  migrated(previous: Flight, _carried: undefined, migration: GatewayMigration, nowUs: Micros): void {
    previous.settled = true;
    this.migrations.push({ requestId: previous.id, attempt: migration.attempt, reason: migration.reason, atMs: nowUs / 1000, tokensSent: migration.tokensSent, from: migration.from });
  }

  /** Never: the twin's gateway does not sweep for silent holders. */
  holderSilent(): void {}

  /** The next attempt: the tokens the client has (their times kept for its record) appended to the prompt. */
  private nextAttemptOf(previous: Flight, next: NextAttempt): Flight {
    const tokensMs = this.tokensOf(previous);
    if (tokensMs.length !== next.outputTokens) throw new Error(`${previous.id}: the client has ${tokensMs.length} tokens, the gateway counted ${next.outputTokens}`);
    const blockHashes = next.outputTokens > 0 ? this.blockHashesWithOutput(previous, next.outputTokens) : previous.blockHashes;
    return nextAttempt(previous, { attempt: next.attempt, tokensMs, blockHashes });
  }

  /** Every token the client has of the request so far, in ms: earlier attempts', then this one's. */
  private tokensOf(flight: Flight): number[] {
    return tokenTimesOf(flight, this.workers.servedBy(flight)?.steps);
  }

  /** The prompt with the first `sent` output tokens appended, as block hashes. */
  private blockHashesWithOutput(flight: Flight, sent: number): number[] {
    const prompt = flight.request.inputTokens;
    const ids = new Uint32Array(prompt.length + sent);
    ids.set(prompt);
    for (let i = 0; i < sent; i++) ids[prompt.length + i] = OUTPUT_TOKEN_BASE + (i % OUTPUT_WORDS);
    return this.settings.blockHasher(ids);
  }
}

/** The tokens the flight's attempt has made so far: its runs of steps. */
function generatedBy(flight: Flight): number {
  let count = flight.runLength;
  const runs = flight.earlierRuns;
  if (runs) for (let r = 1; r < runs.length; r += 2) count += runs[r]!;
  return count;
}
