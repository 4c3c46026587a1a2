import type { Logger } from '@nestjs/common';
import { stampSent, type Bus } from '@sluice/bus';
import { blockIds, subjects, type CancelRequest, type InferenceRequest, type Micros, type ResumeStage, type Stage } from '@sluice/contracts';
import type { Completion, GatewayEffects, GatewayFailure, GatewayMigration, HandoffFailure, NextAttempt } from '@sluice/stages';
import { context, trace, traceExemplarOf } from '@sluice/telemetry';
import type { GatewayMetrics } from './gateway.metrics.js';
import type { EndOfAnswer, OpenExchange } from './open-exchange.js';
import { outputTokenIds } from '@sluice/openai';

const SUBMIT_SUBJECT: Record<ResumeStage, () => string> = {
  admission: subjects.admissionSubmit,
  flow: subjects.flowSubmit,
  router: subjects.routerSubmit,
};

type Refused = (request: InferenceRequest, why: HandoffFailure, message: string) => void;
/** The stage's ack named the process that holds the request now: the core takes it as that stage's `held` frame. */
type HeldByAck = (request: InferenceRequest, stage: ResumeStage, holder: string) => void;

/**
 * The gateway core's effects on HTTP and the bus: acknowledged handoffs in the request's trace
 * (a refusal goes back to the core), tokens, the answer and the error answer on the request's
 * HTTP exchange, cancels on the bus, the TTFT and ITL histograms, and migrations as span events
 * and `sluice_migrations_total`. No rule lives here: what to do, and when, is the core's.
 */
export class GatewayOnBus implements GatewayEffects<InferenceRequest, OpenExchange, EndOfAnswer> {
  constructor(
    private readonly bus: Bus,
    private readonly metrics: GatewayMetrics,
    private readonly logger: Logger,
    private readonly refused: Refused,
    private readonly heldByAck: HeldByAck,
  ) {}

  handOn(request: InferenceRequest, open: OpenExchange, stage: ResumeStage): void {
    stampSent(request.timings);
    // The holder an ack names is taken as the ack is read, before the frames that came after it
    // (the stage's own `held` frame would have come before them too).
    const heldBy = (holder: string) => this.heldByAck(request, stage, holder);
    void context
      .with(trace.setSpan(context.active(), open.span), () => this.bus.handoff(SUBMIT_SUBJECT[stage](), request, request.id, request.attempt, heldBy))
      .then((result) => {
        if (!result.ok) this.refused(request, result.why, result.message);
      });
  }

  held(request: InferenceRequest, open: OpenExchange, stage: Stage, holder: string): void {
    // Reset here, not at the migration: a request whose end was lost with its holder after its
    // last token completes without a new attempt, and its answer names the attempt that served it.
    if (open.holdersOf !== request.attempt) {
      open.holders = {};
      open.holdersOf = request.attempt;
    }
    open.holders[stage] = holder;
  }

  tokens(_request: InferenceRequest, open: OpenExchange, count: number): void {
    this.observeTokens(open, count);
    open.exchange.onTokens(count);
  }

  complete(request: InferenceRequest, open: OpenExchange, completion: Completion<EndOfAnswer>): void {
    const end = 'end' in completion ? completion.end : { instance: completion.lostWith, timings: {} };
    open.exchange.onEnd({ instance: end.instance, priority: request.priority, timings: end.timings, holders: open.holders }, end.cachedTokens);
  }

  fail(_request: InferenceRequest, open: OpenExchange, failure: GatewayFailure): void {
    // The client went away: nothing can be answered; the outcome is still counted.
    if (failure.reason === 'client_disconnected') open.exchange.abandon();
    else open.exchange.fail(failure.reason, failure.message, failure.retryAfterS);
  }

  cancel(_request: InferenceRequest, cancel: CancelRequest): void {
    this.bus.publish(subjects.requestCancel(), cancel);
  }

  migrated(_request: InferenceRequest, open: OpenExchange, migration: GatewayMigration, _nowUs: Micros): void {
    const sent = migration.tokensSent;
    this.metrics.migrations.inc({ reason: migration.reason, type: sent > 0 ? 'ongoing_request' : 'new_request' });
    open.span.addEvent('migration', {
      'sluice.migration.reason': migration.reason,
      'sluice.migration.from': migration.from,
      'sluice.migration.resume_at': migration.resumeAt,
      'sluice.migration.attempt': migration.attempt,
      'sluice.migration.tokens_sent': sent,
    });
    open.span.setAttribute('sluice.request.attempts', migration.attempt + 1);
  }

  holderSilent(holder: string, stage: Stage, requestIds: readonly string[]): void {
    this.logger.warn(`${holder} (${stage}) went silent holding ${requestIds.join(', ')}: re-submitting`);
  }

  /** TTFT on the first tokens; after them, one ITL sample per token (a frame's gap split evenly over its tokens). */
  private observeTokens(open: OpenExchange, count: number): void {
    const now = Date.now();
    if (open.lastTokenMs === undefined) {
      const ttft = (now - open.arrivalMs) / 1000;
      open.tokenSeries.ttft.observe(ttft, traceExemplarOf(open.span));
      open.objective?.ttft.observe(ttft);
    } else {
      const frameGap = (now - open.lastTokenMs) / 1000;
      const gap = frameGap / count;
      for (let i = 0; i < count; i++) open.tokenSeries.itl.observe(gap);
      // The Endpoint Picker times the gaps between the chunks it relays: one per frame.
      open.objective?.itl.observe(frameGap);
    }
    open.lastTokenMs = now;
  }
}

/**
 * The next attempt of a re-submitted request, as the core numbers it: the prompt's blocks recomputed
 * over the prompt and the output so far (one id per output token, as the worker counts them), and
 * no stage timings yet.
 */
export function nextAttemptOf(previous: InferenceRequest, open: OpenExchange, next: NextAttempt): InferenceRequest {
  return {
    ...previous,
    attempt: next.attempt,
    inputTokens: next.inputTokens,
    maxTokens: next.maxTokens,
    blockHashes: next.outputTokens > 0 ? blockIds([...open.promptTokenIds, ...outputTokenIds(next.outputTokens)]) : previous.blockHashes,
    timings: {},
  };
}
