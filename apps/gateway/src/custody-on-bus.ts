import type { Logger } from '@nestjs/common';
import { epochMicros } from '@sluice/bus';
import {
  LifecycleEventSchema,
  PresenceEventSchema,
  blockIds,
  microsFromMillis,
  subjectPatterns,
  subjects,
  type CancelRequest,
  type HeldFrame,
  type InferenceRequest,
  type MigrateFrame,
  type MigrationReason,
  type ResumeStage,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import type { ServiceContext } from '@sluice/service';
import { Custody, HANDOFF_RETRY, UNAVAILABLE_AT, endReasonWhenSpent, resubmitPauseMs, resumeStageAfter } from '@sluice/stages';
import type { Subscription } from '@nats-io/transport-node';
import type { GatewayMetrics } from './gateway.metrics.js';
import { handoffWithRetry } from './handoff-with-retry.js';
import type { PendingRequest } from './pending-request.js';
import { outputTokenIds } from './prompt.js';

const SUBMIT_SUBJECT: Record<ResumeStage, () => string> = {
  admission: subjects.admissionSubmit,
  flow: subjects.flowSubmit,
  router: subjects.routerSubmit,
};


/**
 * The gateway's custody of its requests on the bus (libs/stages Custody holds the rules): it hears
 * who holds each request (`held` frames), who is alive (service presence, instance heartbeats), and
 * re-submits a request as a new attempt when its holder is lost or hands it back, with the tokens
 * already streamed appended to its prompt (Dynamo's migration), up to `gateway.migrationLimit`.
 * Each re-submission cancels the attempt it replaces, so a stale copy is not served anywhere.
 */
export class CustodyOnBus {
  private readonly custody: Custody;
  private readonly subscriptions: Subscription[] = [];
  private sweep: NodeJS.Timeout | undefined;
  /** How long a re-submission keeps trying a stage that does not answer: two heartbeat timeouts. */
  private readonly resubmitWindowMs: number;

  constructor(
    private readonly service: ServiceContext<SluiceConfig>,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
    private readonly pendingOf: (requestId: string) => PendingRequest | undefined,
  ) {
    const { heartbeatTimeoutMs, migrationLimit } = service.config.gateway;
    this.custody = new Custody({ heartbeatTimeoutUs: microsFromMillis(heartbeatTimeoutMs), migrationLimit });
    this.resubmitWindowMs = HANDOFF_RETRY.windowHeartbeats * heartbeatTimeoutMs;
  }

  start(): void {
    const { bus } = this.service;
    this.subscriptions.push(
      bus.listen(subjectPatterns.allServicePresence, PresenceEventSchema, ({ data }) => this.custody.heard(data.processId, epochMicros())),
      bus.listen(subjectPatterns.allWorkerLifecycle, LifecycleEventSchema, ({ data }) => this.custody.heard(data.instanceId, epochMicros())),
    );
    const sweepMs = Math.max(50, Math.floor(this.service.config.gateway.heartbeatTimeoutMs / 3));
    this.sweep = setInterval(() => this.sweepLost(), sweepMs);
    this.sweep.unref();
    bus.onConnection((event) => (event === 'disconnected' ? this.custody.suspend() : this.reconnected()));
  }

  stop(): void {
    clearInterval(this.sweep);
    for (const subscription of this.subscriptions) subscription.unsubscribe();
  }

  open(requestId: string): void {
    this.custody.open(requestId);
  }

  close(requestId: string): void {
    this.custody.close(requestId);
  }

  isCurrent(requestId: string, attempt: number): boolean {
    return this.custody.isCurrent(requestId, attempt);
  }

  onHeld(frame: HeldFrame): void {
    this.custody.held(frame, epochMicros());
  }

  onMigrate(frame: MigrateFrame): void {
    this.migrate(frame.requestId, frame.attempt, frame.reason, frame.resumeAt, frame.holder);
  }

  /** The first handoff, to admission: tried again while admission is restarting or frozen. */
  async submit(request: InferenceRequest): Promise<void> {
    await this.handOn(request, 'admission');
  }

  /** Every sweep: requests whose holder went silent are re-submitted where they stood. */
  private sweepLost(): void {
    for (const lost of this.custody.lost(epochMicros())) {
      const reason: MigrationReason = lost.stage === 'worker' ? 'worker_lost' : 'stage_lost';
      this.logger.warn(`${lost.holder} (${lost.stage}) went silent holding ${lost.requestId}: re-submitting it`);
      this.migrate(lost.requestId, lost.attempt, reason, resumeStageAfter(lost.stage), lost.holder);
    }
  }

  /** The gateway's connection is back: frames sent to it meanwhile may be lost, so what was open goes again. */
  private reconnected(): void {
    const open = this.custody.resume(epochMicros());
    if (open.length > 0) this.logger.warn(`NATS connection back: re-submitting ${open.length} open requests`);
    for (const request of open) this.migrate(request.requestId, request.attempt, request.reason, resumeStageAfter(request.stage), 'gateway');
  }

  private migrate(requestId: string, attempt: number, reason: MigrationReason, resumeAt: ResumeStage, holder: string): void {
    const pending = this.pendingOf(requestId);
    if (!pending || pending.exchange.isSettled) return;
    const stage = this.custody.holderOf(requestId)?.stage;
    const verdict = this.custody.migrate(requestId, attempt);
    if (verdict.kind === 'ignored') return;
    const sent = pending.exchange.tokensSent;
    if (verdict.kind === 'exhausted') {
      const lostReason = endReasonWhenSpent(reason, stage, resumeAt);
      pending.exchange.fail(lostReason, `${holder} lost the request (${reason}) after ${sent} tokens, and the migration limit (${verdict.migrations}) is spent`);
      return;
    }
    const type = sent > 0 ? 'ongoing_request' : 'new_request';
    this.metrics.migrations.inc({ reason, type });
    pending.span.addEvent('migration', {
      'sluice.migration.reason': reason,
      'sluice.migration.from': holder,
      'sluice.migration.resume_at': resumeAt,
      'sluice.migration.attempt': verdict.attempt,
      'sluice.migration.tokens_sent': sent,
    });
    pending.span.setAttribute('sluice.request.attempts', verdict.attempt + 1);
    // The replaced attempt stops wherever it still runs, and is not served if it arrives late.
    const cancel: CancelRequest = { requestId, reason: 'superseded', attempt: verdict.attempt - 1 };
    this.service.bus.publish(subjects.requestCancel(), cancel);
    const { original } = pending;
    if (sent >= original.maxTokens) {
      // Every token reached the client; only the end was lost with its holder.
      pending.exchange.onEnd({ instance: holder, priority: original.priority, timings: {}, holders: pending.holders });
      return;
    }
    pending.attemptBaseTokens = sent;
    pending.holders = {};
    const next: InferenceRequest = {
      ...original,
      attempt: verdict.attempt,
      inputTokens: original.inputTokens + sent,
      maxTokens: original.maxTokens - sent,
      blockHashes: sent > 0 ? blockIds([...pending.promptTokenIds, ...outputTokenIds(sent)]) : original.blockHashes,
      timings: {},
    };
    // Handed back because the next stage was absent: give it a moment (doubling) before trying again.
    const pauseMs = resubmitPauseMs(reason, verdict.migrations);
    if (pauseMs === 0) void this.handOn(next, resumeAt);
    else setTimeout(() => void this.handOn(next, resumeAt), pauseMs);
  }

  /** Hands a request (attempt) to a stage, trying again while the stage is absent; ends it when it never answers. */
  private async handOn(request: InferenceRequest, stage: ResumeStage): Promise<void> {
    const stillWanted = () => this.pendingOf(request.id)?.exchange.isSettled === false && this.custody.isCurrent(request.id, request.attempt);
    const result = await handoffWithRetry(this.service.bus, SUBMIT_SUBJECT[stage](), request, this.resubmitWindowMs, stillWanted);
    if (result === 'abandoned' || result.ok || !stillWanted()) return;
    this.pendingOf(request.id)?.exchange.fail(UNAVAILABLE_AT[stage], result.message);
  }
}

