import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Subscription } from '@nats-io/transport-node';
import { epochMicros, monotonicMs, msSinceStamp, takeHopMs, WakeUpTimers } from '@sluice/bus';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import {
  InboxFrameSchema,
  LifecycleEventSchema,
  PresenceEventSchema,
  blockIds,
  microsFromMillis,
  httpHeaders,
  errorTypeOf,
  httpStatusOf,
  subjectPatterns,
  subjects,
  type InboxFrame,
  type TokensBatchFrame,
  type InferenceRequest,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { GatewayStage, gatewaySettingsFrom, priorityFor, type GatewayWakeUp } from '@sluice/stages';
import { SpanKind, sampledTraceIdOf, type Span } from '@sluice/telemetry';
import { Exchange, apiError, sendJson, type ApiKind } from '@sluice/openai';
import { ApiKeys } from './api-keys.js';
import { GATEWAY_METRICS, tokenSeriesOf, type GatewayMetrics } from './gateway.metrics.js';
import { GatewayOnBus, nextAttemptOf } from './gateway-on-bus.js';
import type { EndOfAnswer, OpenExchange } from './open-exchange.js';
import { RequestIds } from './request-ids.js';
import { RequestIntake } from './request-intake.js';
import { completedAnswerAttributes, serverSpanAttributes } from './span-conventions.js';
import { recordTerminalOutcome } from './terminal-outcome.js';

/**
 * The gateway service: HTTP in, the core's effects out. Each request gets an id, a span and an HTTP
 * exchange, passes the door's checks (RequestIntake), and is handed to the core (libs/stages
 * GatewayStage), which owns it until its one terminal outcome: hand-on and retries, the current
 * attempt's frames, custody and migration, the deadline. `GatewayOnBus` turns the core's effects
 * into handoffs, answers and metrics; every outcome is counted, by reason, when the exchange ends.
 */
@Injectable()
export class InferenceService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('gateway');
  private readonly core: GatewayStage<InferenceRequest, OpenExchange, EndOfAnswer>;
  private readonly timers: WakeUpTimers<GatewayWakeUp>;
  private readonly subscriptions: Subscription[] = [];
  private readonly intake: RequestIntake;
  private readonly objectives: ReadonlyMap<string, number>;
  private readonly ids = new RequestIds();
  private readonly tokenSeries: ReturnType<typeof tokenSeriesOf>;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    private readonly http: HttpAdapterHost,
    @Inject(GATEWAY_METRICS) private readonly metrics: GatewayMetrics,
    @Inject(ApiKeys) keys: ApiKeys,
  ) {
    this.tokenSeries = tokenSeriesOf(this.metrics);
    this.intake = new RequestIntake(service.config, keys, () => this.metrics.headersStripped.inc());
    this.objectives = new Map(service.config.inferenceObjectives.map((o) => [o.name, o.priority]));
    this.timers = new WakeUpTimers((kind, atUs, nowUs) => this.core.wake(kind, atUs, nowUs), epochMicros);
    const effects = new GatewayOnBus(
      service.bus,
      metrics,
      this.logger,
      (request, why, message) => this.core.handoffRefused(request.id, request.attempt, why, message, epochMicros()),
      (request, stage, holder) => this.core.onHeld({ requestId: request.id, attempt: request.attempt, stage, holder }, epochMicros()),
    );
    this.core = new GatewayStage(gatewaySettingsFrom(service.config.gateway, service.config.nats.ackTimeoutMs), effects, this.timers, nextAttemptOf);
  }

  onModuleInit(): void {
    const { bus, instanceId } = this.service;
    this.subscriptions.push(
      bus.listen(subjects.inboxOfGateway(instanceId), InboxFrameSchema, ({ data }) => {
        if (data.type === 'tokens-batch') for (const frame of data.frames) this.onFrame(frame);
        else this.onFrame(data);
      }),
      // Who is alive: a holder silent past the heartbeat timeout has lost what it held.
      bus.listen(subjectPatterns.allServicePresence, PresenceEventSchema, ({ data }) => this.core.heard(data.processId, epochMicros())),
      bus.listen(subjectPatterns.allWorkerLifecycle, LifecycleEventSchema, ({ data }) => this.core.heard(data.instanceId, epochMicros())),
    );
    bus.onConnection((event) => {
      if (event === 'disconnected') return this.core.suspendExpiry(epochMicros());
      const resubmitted = this.core.resumeExpiry(epochMicros());
      if (resubmitted > 0) this.logger.warn(`NATS connection back: re-submitting ${resubmitted} open requests`);
    });
    this.core.start(epochMicros());
  }

  /**
   * Graceful shutdown: readiness is already false and the HTTP server stops taking connections
   * (Nest closes it after this hook); open requests get the grace period to finish, and whatever is
   * still open then ends as dropped: shutdown, never silently.
   */
  async onModuleDestroy(): Promise<void> {
    const server = this.http.httpAdapter?.getHttpServer() as Server | undefined;
    server?.close(); // no new connections; idle keep-alive ones are closed, open streams go on
    const giveUpAt = Date.now() + this.service.config.gateway.shutdownGraceMs;
    while (this.core.openCount > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 20));
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.core.shutdown(epochMicros());
    this.timers.clear();
  }

  modelNames(): string[] {
    return this.service.config.models.map((m) => m.name);
  }

  async handle(kind: ApiKind, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAtMs = monotonicMs();
    const arrivalMs = Date.now();
    // One reading of the wall clock: the wire's epoch µs and the gateway's own ms agree.
    const arrivalUs = microsFromMillis(arrivalMs);
    const path = kind === 'chat' ? '/v1/chat/completions' : '/v1/completions';
    this.metrics.received.inc({ endpoint: path });
    this.metrics.inFlight.inc();
    const span = this.service.tracer.startSpan(`POST ${path}`, {
      kind: SpanKind.SERVER,
      attributes: serverSpanAttributes(kind, path, req),
    });
    const id = this.ids.next(kind);
    span.setAttribute('sluice.request.id', id);
    // Every answer, refusals included, names the trace its request is in, so a client can open it.
    const traceId = sampledTraceIdOf(span);
    if (traceId !== undefined) res.setHeader(httpHeaders.traceId, traceId);

    const taken = await this.intake.take(kind, req, arrivalUs);
    if (taken.key !== undefined) span.setAttribute('sluice.api_key.id', taken.key.id);
    if (!taken.ok) {
      // Every request that entered ends in one outcome, whatever became of it at the door.
      const status = httpStatusOf(taken.reason);
      if (taken.message === undefined) res.destroy();
      else if (!res.destroyed) {
        const headers = { [httpHeaders.requestId]: id, [httpHeaders.droppedReason]: taken.reason, ...taken.headers };
        sendJson(res, status, apiError(taken.message, errorTypeOf(taken.reason), taken.param, taken.reason), headers);
      }
      // Counted for the Endpoint Picker too, with no model: the request was refused before one was known.
      const objective = this.metrics.objective.seriesOf('', '', undefined, false);
      recordTerminalOutcome(this.metrics, span, arrivalMs, taken.reason, status, { key: taken.key, promptTokens: 0, outputTokens: 0 }, { series: objective, taken: false, streaming: false, responseBytes: 0 });
      return;
    }
    const { scheduling, key } = taken;
    const inputTokens = taken.tokenIds.length;
    const priority = priorityFor(scheduling.objective, scheduling.sloClass, this.objectives);
    this.describe(span, taken, priority);
    const objective = this.metrics.objective.seriesOf(taken.model, scheduling.fairnessId, priority, taken.stream);
    objective.running.inc();
    objective.requestBytes.observe(taken.bodyBytes);
    objective.inputTokens.observe(inputTokens);

    const request: InferenceRequest = {
      id,
      model: taken.model,
      inputTokens,
      blockHashes: blockIds(taken.tokenIds),
      maxTokens: taken.maxTokens,
      bodyBytes: taken.bodyBytes,
      sloClass: scheduling.sloClass,
      priority,
      fairnessId: scheduling.fairnessId,
      ...(scheduling.objective !== undefined ? { objective: scheduling.objective } : {}),
      ...(scheduling.sloTtftMs !== undefined ? { sloTtftUs: microsFromMillis(scheduling.sloTtftMs) } : {}),
      arrivalUs,
      deadlineUs: this.core.deadlineOf(arrivalUs, taken.stream),
      attempt: 0,
      gatewayId: this.service.instanceId,
      replyTo: subjects.inbox(this.service.instanceId, id),
      timings: {},
    };
    const exchange = new Exchange({
      res,
      kind,
      id,
      model: taken.model,
      promptTokens: inputTokens,
      maxTokens: taken.maxTokens,
      stream: taken.stream,
      includeUsage: taken.includeUsage,
      reportTimings: taken.reportTimings,
      errorBody: this.service.config.gateway.errorBody,
      onSettle: (reason, outputTokens) => {
        if (reason === 'ok') span.setAttributes(completedAnswerAttributes(id, taken.model, outputTokens, taken.maxTokens));
        const usage = { key, promptTokens: inputTokens, outputTokens };
        recordTerminalOutcome(this.metrics, span, arrivalMs, reason, httpStatusOf(reason), usage, { series: objective, taken: true, streaming: taken.stream, responseBytes: exchange.responseBytes });
      },
    });
    const open: OpenExchange = {
      exchange,
      span,
      arrivalMs,
      promptTokenIds: taken.tokenIds,
      holders: {},
      holdersOf: 0,
      lastTokenMs: undefined,
      tokenSeries: this.tokenSeries(taken.model, scheduling.sloClass),
      objective: taken.stream ? objective : undefined,
    };
    if (taken.sentAt) {
      const clientSendMs = msSinceStamp(taken.sentAt.atMs, taken.sentAt.clock, arrivedAtMs);
      if (clientSendMs !== undefined) request.timings.clientSendMs = clientSendMs;
    }
    request.timings.gatewayInMs = monotonicMs() - arrivedAtMs;
    this.core.receive(request, open, epochMicros(), taken.stream);
    res.on('close', () => {
      if (!exchange.isSettled) this.core.clientGone(id, epochMicros());
    });
  }

  /** What the request asks for and how it is scheduled, on its span. */
  private describe(span: Span, taken: Extract<Awaited<ReturnType<RequestIntake['take']>>, { ok: true }>, priority: number): void {
    const { scheduling } = taken;
    span.setAttributes({
      'gen_ai.request.model': taken.model,
      'gen_ai.request.max_tokens': taken.maxTokens,
      'gen_ai.usage.input_tokens': taken.tokenIds.length,
      'sluice.slo_class': scheduling.sloClass,
      'sluice.fairness_id': scheduling.fairnessId,
      'sluice.stream': taken.stream,
      'sluice.headers.trusted': taken.headersTrusted,
      'sluice.priority': priority,
    });
    if (scheduling.objective !== undefined) span.setAttribute('sluice.objective', scheduling.objective);
  }

  /** Every frame goes to the core, which acts only on the current attempt's. */
  private onFrame(frame: Exclude<InboxFrame, TokensBatchFrame>): void {
    const nowUs = epochMicros();
    switch (frame.type) {
      case 'tokens':
        return this.core.onTokens(frame.requestId, frame.attempt, frame.count, frame.generated, nowUs);
      case 'end': {
        const hop = takeHopMs(frame.timings);
        if (hop !== undefined) frame.timings.toGatewayMs = hop;
        return this.core.onEnd(frame.requestId, frame.attempt, frame.outputTokens, { instance: frame.instanceId, timings: frame.timings, ...(frame.cachedTokens !== undefined && { cachedTokens: frame.cachedTokens }) }, nowUs);
      }
      case 'error':
        return this.core.onError(frame.requestId, frame.attempt, frame.reason, frame.message, frame.stage, nowUs, frame.retryAfterMs);
      case 'migrate':
        return this.core.onMigrate(frame, nowUs);
      case 'held':
        return this.core.onHeld(frame, nowUs);
      default: {
        const unhandled: never = frame;
        throw new Error(`unhandled frame ${JSON.stringify(unhandled)}`);
      }
    }
  }
}
