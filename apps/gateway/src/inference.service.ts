import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Subscription } from '@nats-io/transport-node';
import { monotonicMs, takeHopMs } from '@sluice/bus';
import { SERVICE_CONTEXT, type ServiceContext } from '@sluice/service';
import {
  InboxFrameSchema,
  blockIds,
  micros,
  microsFromMillis,
  httpHeaders,
  outcomeOf,
  errorTypeOf,
  httpStatusOf,
  subjects,
  type CancelRequest,
  type InboxFrame,
  type TokensBatchFrame,
  type InferenceRequest,
  type OutcomeReason,
} from '@sluice/contracts';
import type { SluiceConfig } from '@sluice/config';
import { SpanKind, SpanStatusCode, context, trace, type Span } from '@sluice/telemetry';
import { CustodyOnBus } from './custody-on-bus.js';
import { Exchange, type ApiKind } from './exchange.js';
import { ApiKeys, type ApiKey } from './api-keys.js';
import { GATEWAY_METRICS, eppErrorCodeOf, tokenSeriesOf, type GatewayMetrics, type ObjectiveSeries } from './gateway.metrics.js';
import { apiError, sendJson } from './http-io.js';
import { RequestIds } from './request-ids.js';
import { RequestIntake } from './request-intake.js';
import type { PendingRequest } from './pending-request.js';
import { priorityFor } from '@sluice/stages';

/**
 * The gateway's core: each request gets an id, a trace, a deadline and an inbox; it is handed to
 * admission and its frames are turned into the HTTP answer. Every request that enters ends in
 * exactly one terminal outcome, counted by reason.
 */
@Injectable()
export class InferenceService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('gateway');
  private readonly pending = new Map<string, PendingRequest>();
  private readonly custody: CustodyOnBus;
  private inbox: Subscription | undefined;
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
    this.custody = new CustodyOnBus(service, this.metrics, this.logger, (id) => this.pending.get(id));
  }

  onModuleInit(): void {
    this.inbox = this.service.bus.listen(subjects.inboxOfGateway(this.service.instanceId), InboxFrameSchema, ({ data }) => {
      if (data.type === 'tokens-batch') for (const frame of data.frames) this.onFrame(frame);
      else this.onFrame(data);
    });
    this.custody.start();
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
    while (this.pending.size > 0 && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 20));
    this.custody.stop();
    this.inbox?.unsubscribe();
    for (const { exchange } of [...this.pending.values()]) exchange.fail('shutdown', 'the gateway is shutting down');
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
      attributes: { 'http.request.method': 'POST', 'url.path': path, 'http.route': path, 'gen_ai.operation.name': kind === 'chat' ? 'chat' : 'text_completion' },
    });
    const id = this.ids.next(kind);
    span.setAttribute('sluice.request.id', id);

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
      return this.recordOutcome(span, arrivalMs, taken.reason, status, { key: taken.key, promptTokens: 0, outputTokens: 0 }, { series: objective, taken: false, streaming: false, responseBytes: 0 });
    }
    const { scheduling, key } = taken;
    const inputTokens = taken.tokenIds.length;
    span.setAttributes({
      'gen_ai.request.model': taken.model,
      'gen_ai.request.max_tokens': taken.maxTokens,
      'gen_ai.usage.input_tokens': inputTokens,
      'sluice.slo_class': scheduling.sloClass,
      'sluice.fairness_id': scheduling.fairnessId,
      'sluice.stream': taken.stream,
      'sluice.headers.trusted': taken.headersTrusted,
    });
    const priority = priorityFor(scheduling.objective, scheduling.sloClass, this.objectives);
    span.setAttribute('sluice.priority', priority);
    const objective = this.metrics.objective.seriesOf(taken.model, scheduling.fairnessId, priority, taken.stream);
    objective.running.inc();
    objective.requestBytes.observe(taken.bodyBytes);
    objective.inputTokens.observe(inputTokens);
    if (scheduling.objective !== undefined) span.setAttribute('sluice.objective', scheduling.objective);

    const { requestTimeoutMs } = this.service.config.gateway;
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
      deadlineUs: micros(arrivalUs + microsFromMillis(requestTimeoutMs)),
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
      onSettle: (reason, outputTokens) => {
        const entry = this.pending.get(id);
        if (entry) clearTimeout(entry.deadline);
        this.pending.delete(id);
        this.custody.close(id);
        // Ended here other than by its last token: every copy downstream lets it go.
        if (reason !== 'ok') this.cancelDownstream(id, reason === 'client_disconnected' || reason === 'timeout' ? reason : 'ended');
        this.recordOutcome(span, arrivalMs, reason, httpStatusOf(reason), { key, promptTokens: inputTokens, outputTokens }, { series: objective, taken: true, streaming: taken.stream, responseBytes: exchange.responseBytes });
      },
    });
    const end = endOf(taken.stream, requestTimeoutMs, this.service.config.gateway.limits.maxStreamDurationMs);
    const deadline = setTimeout(() => exchange.fail(end.reason, end.message), end.afterMs);
    this.pending.set(id, { exchange, deadline, span, arrivalMs, sloClass: scheduling.sloClass, original: request, promptTokenIds: taken.tokenIds, attemptBaseTokens: 0, holders: {}, lastTokenMs: undefined, tokenSeries: this.tokenSeries(taken.model, scheduling.sloClass), objective: taken.stream ? objective : undefined });
    this.custody.open(id);
    res.on('close', () => {
      if (!exchange.isSettled) exchange.abandon();
    });

    request.timings.gatewayInMs = monotonicMs() - arrivedAtMs;
    await context.with(trace.setSpan(context.active(), span), () => this.custody.submit(request));
  }

  /**
   * Frames of the request's current attempt only: a superseded attempt still running somewhere
   * (it was re-submitted) can neither add tokens nor end it.
   */
  private onFrame(frame: Exclude<InboxFrame, TokensBatchFrame>): void {
    const entry = this.pending.get(frame.requestId);
    if (!entry) return; // already settled (timeout, disconnect): late frames are ignored
    if (!this.custody.isCurrent(frame.requestId, frame.attempt)) return;
    switch (frame.type) {
      case 'tokens':
        // With `generated`, the frame says where the attempt stands: send what the client lacks.
        if (frame.generated === undefined) this.stream(entry, frame.count);
        else this.streamUpTo(entry, frame.generated);
        return;
      case 'end': {
        // The end frame says how many tokens the attempt made: its last ones travel in it, and a lost tokens frame is filled.
        this.streamUpTo(entry, frame.outputTokens);
        const hop = takeHopMs(frame.timings);
        if (hop !== undefined) frame.timings.toGatewayMs = hop;
        entry.exchange.onEnd({ instance: frame.instanceId, priority: entry.original.priority, timings: frame.timings, holders: entry.holders });
        return;
      }
      case 'error':
        entry.exchange.fail(frame.reason, frame.message);
        return;
      case 'migrate':
        this.custody.onMigrate(frame);
        return;
      case 'held':
        entry.holders[frame.stage] = frame.holder;
        this.custody.onHeld(frame);
        return;
      default: {
        const unhandled: never = frame;
        throw new Error(`unhandled frame ${JSON.stringify(unhandled)}`);
      }
    }
  }

  /** Streams what the client lacks of the attempt's first `attemptTokens` tokens (nothing for a duplicate frame). */
  private streamUpTo(entry: PendingRequest, attemptTokens: number): void {
    this.stream(entry, entry.attemptBaseTokens + attemptTokens - entry.exchange.tokensSent);
  }

  private stream(entry: PendingRequest, count: number): void {
    if (count <= 0) return;
    this.observeTokens(entry, count);
    entry.exchange.onTokens(count);
  }

  /** TTFT on the first frame; after it, one ITL sample per token (a frame's gap split evenly over its tokens). */
  private observeTokens(entry: PendingRequest, count: number): void {
    const now = Date.now();
    if (entry.lastTokenMs === undefined) {
      const ttft = (now - entry.arrivalMs) / 1000;
      entry.tokenSeries.ttft.observe(ttft);
      entry.objective?.ttft.observe(ttft);
    } else {
      const frameGap = (now - entry.lastTokenMs) / 1000;
      const gap = frameGap / count;
      for (let i = 0; i < count; i++) entry.tokenSeries.itl.observe(gap);
      // The Endpoint Picker times the gaps between the chunks it relays: one per frame.
      entry.objective?.itl.observe(frameGap);
    }
    entry.lastTokenMs = now;
  }

  /** The Endpoint Picker's objective metrics of a request at its terminal outcome; answer sizes and times of completed ones. */
  private recordObjective(epp: { series: ObjectiveSeries; taken: boolean; streaming: boolean; responseBytes: number }, reason: OutcomeReason, status: number, seconds: number, outputTokens: number): void {
    const { series } = epp;
    series.total.inc();
    const code = eppErrorCodeOf(reason, status);
    if (code !== '') series.error(code).inc();
    if (!epp.taken) return;
    series.running.dec();
    if (reason !== 'ok') return;
    series.duration.observe(seconds);
    series.responseBytes.observe(epp.responseBytes);
    series.outputTokens.observe(outputTokens);
    if (outputTokens > 0) series.ntpot.observe(seconds / outputTokens);
    if (!epp.streaming) series.ttft.observe(seconds);
  }

  private cancelDownstream(requestId: string, reason: CancelRequest['reason']): void {
    const cancel: CancelRequest = { requestId, reason };
    this.service.bus.publish(subjects.requestCancel(), cancel);
  }

  private recordOutcome(
    span: Span,
    arrivalMs: number,
    reason: OutcomeReason,
    status: number,
    usage: { key: ApiKey | undefined; promptTokens: number; outputTokens: number },
    epp: { series: ObjectiveSeries; taken: boolean; streaming: boolean; responseBytes: number },
  ): void {
    const outcome = outcomeOf(reason);
    const seconds = (Date.now() - arrivalMs) / 1000;
    this.metrics.terminal.inc({ outcome, reason });
    this.metrics.inFlight.dec();
    this.metrics.duration.observe({ outcome }, seconds);
    this.recordObjective(epp, reason, status, seconds, usage.outputTokens);
    if (usage.key !== undefined) {
      const keyId = usage.key.id;
      this.metrics.apiKeyRequests.inc({ key_id: keyId, outcome });
      if (usage.promptTokens > 0) this.metrics.apiKeyTokens.inc({ key_id: keyId, kind: 'prompt' }, usage.promptTokens);
      if (usage.outputTokens > 0) this.metrics.apiKeyTokens.inc({ key_id: keyId, kind: 'completion' }, usage.outputTokens);
    }
    span.setAttributes({
      'http.response.status_code': status,
      'sluice.outcome': outcome,
      'sluice.outcome.reason': reason,
      'gen_ai.usage.output_tokens': usage.outputTokens,
    });
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    span.end();
  }
}

/**
 * When the gateway gives up on a request: its deadline (504 `timeout`), or for a stream the
 * shorter gateway.limits.maxStreamDurationMs (`stream_too_long`), counted from the arrival.
 */
function endOf(stream: boolean, requestTimeoutMs: number, maxStreamDurationMs: number): { afterMs: number; reason: OutcomeReason; message: string } {
  if (stream && maxStreamDurationMs > 0 && maxStreamDurationMs < requestTimeoutMs) {
    return { afterMs: maxStreamDurationMs, reason: 'stream_too_long', message: `the stream was open longer than ${maxStreamDurationMs} ms (gateway.limits.maxStreamDurationMs)` };
  }
  return { afterMs: requestTimeoutMs, reason: 'timeout', message: `no answer within ${requestTimeoutMs} ms` };
}
