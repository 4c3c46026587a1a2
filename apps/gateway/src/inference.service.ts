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
import { createGatewayMetrics, tokenSeriesOf, type GatewayMetrics } from './gateway.metrics.js';
import { BodyError, BodyTimeoutError, apiError, readJsonBody, sendJson } from './http-io.js';
import { parseInferenceRequest } from './parse-request.js';
import { RequestIds } from './request-ids.js';
import type { PendingRequest } from './pending-request.js';
import { HeaderTrust } from './scheduling-headers.js';
import { exceedsContext, priorityFor } from '@sluice/stages';

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
  private readonly metrics: GatewayMetrics;
  private inbox: Subscription | undefined;
  private readonly headerTrust: HeaderTrust;
  private readonly objectives: ReadonlyMap<string, number>;
  private readonly ids = new RequestIds();
  private readonly tokenSeries: ReturnType<typeof tokenSeriesOf>;

  constructor(
    @Inject(SERVICE_CONTEXT) private readonly service: ServiceContext<SluiceConfig>,
    private readonly http: HttpAdapterHost,
  ) {
    this.metrics = createGatewayMetrics(service.metrics);
    this.tokenSeries = tokenSeriesOf(this.metrics);
    this.headerTrust = new HeaderTrust(service.config.gateway.trustedHeaderSources);
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

    const settleOnly = (reason: OutcomeReason, status: number) => this.recordOutcome(span, arrivalMs, reason, status, 0);
    let body: unknown;
    let bodyBytes: number;
    try {
      ({ value: body, bytes: bodyBytes } = await readJsonBody(req, { timeoutMs: this.service.config.gateway.bodyTimeoutMs }));
    } catch (error) {
      // Every request that entered ends in one outcome, whatever became of its body.
      if (error instanceof BodyTimeoutError) {
        if (!res.destroyed) sendJson(res, 408, apiError(error.message, 'timeout', null, 'body_timeout'), { connection: 'close' });
        return settleOnly('body_timeout', 408);
      }
      if (error instanceof BodyError) {
        sendJson(res, 400, apiError(error.message, 'invalid_request_error'));
        return settleOnly('invalid_request', 400);
      }
      // The client went away mid-body (aborted, broken chunked encoding, a short Content-Length).
      res.destroy();
      return settleOnly('client_disconnected', 499);
    }
    const models = this.modelNames();
    const scheduling = this.headerTrust.filter(req.headers, req.socket.remoteAddress);
    if (scheduling.stripped) this.metrics.headersStripped.inc();
    const parsed = parseInferenceRequest(kind, body, scheduling.headers, models);
    if (!parsed.ok) {
      sendJson(res, 400, apiError(parsed.message, 'invalid_request_error', parsed.param, 'invalid_request'));
      return settleOnly('invalid_request', 400);
    }
    const model = this.service.config.models.find((m) => m.name === parsed.model)!;
    const inputTokens = parsed.tokenIds.length;
    const tooLong = exceedsContext(inputTokens, parsed.maxTokens, model);
    if (tooLong !== undefined) {
      sendJson(res, 400, apiError(tooLong, 'invalid_request_error', 'max_tokens', 'unservable'));
      return settleOnly('unservable', 400);
    }
    span.setAttributes({
      'gen_ai.request.model': parsed.model,
      'gen_ai.request.max_tokens': parsed.maxTokens,
      'gen_ai.usage.input_tokens': inputTokens,
      'sluice.slo_class': parsed.sloClass,
      'sluice.fairness_id': parsed.fairnessId,
      'sluice.stream': parsed.stream,
      'sluice.headers.trusted': !scheduling.stripped,
    });
    const priority = priorityFor(parsed.objective, parsed.sloClass, this.objectives);
    span.setAttribute('sluice.priority', priority);
    if (parsed.objective !== undefined) span.setAttribute('sluice.objective', parsed.objective);

    const request: InferenceRequest = {
      id,
      model: parsed.model,
      inputTokens,
      blockHashes: blockIds(parsed.tokenIds),
      maxTokens: parsed.maxTokens,
      bodyBytes,
      sloClass: parsed.sloClass,
      priority,
      fairnessId: parsed.fairnessId,
      ...(parsed.objective !== undefined ? { objective: parsed.objective } : {}),
      ...(parsed.sloTtftMs !== undefined ? { sloTtftUs: microsFromMillis(parsed.sloTtftMs) } : {}),
      arrivalUs,
      deadlineUs: micros(arrivalUs + microsFromMillis(this.service.config.gateway.requestTimeoutMs)),
      attempt: 0,
      gatewayId: this.service.instanceId,
      replyTo: subjects.inbox(this.service.instanceId, id),
      timings: {},
    };
    const exchange = new Exchange({
      res,
      kind,
      id,
      model: parsed.model,
      promptTokens: inputTokens,
      maxTokens: parsed.maxTokens,
      stream: parsed.stream,
      includeUsage: parsed.includeUsage,
      reportTimings: req.headers[httpHeaders.reportTimings] === '1',
      onSettle: (reason, outputTokens) => {
        const entry = this.pending.get(id);
        if (entry) clearTimeout(entry.deadline);
        this.pending.delete(id);
        this.custody.close(id);
        // Ended here other than by its last token: every copy downstream lets it go.
        if (reason !== 'ok') this.cancelDownstream(id, reason === 'client_disconnected' || reason === 'timeout' ? reason : 'ended');
        this.recordOutcome(span, arrivalMs, reason, httpStatusOf(reason), outputTokens);
      },
    });
    const deadline = setTimeout(() => {
      exchange.fail('timeout', `no answer within ${this.service.config.gateway.requestTimeoutMs} ms`);
    }, this.service.config.gateway.requestTimeoutMs);
    this.pending.set(id, { exchange, deadline, span, arrivalMs, sloClass: parsed.sloClass, original: request, promptTokenIds: parsed.tokenIds, attemptBaseTokens: 0, holders: {}, lastTokenMs: undefined, tokenSeries: this.tokenSeries(parsed.model, parsed.sloClass) });
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
      entry.tokenSeries.ttft.observe((now - entry.arrivalMs) / 1000);
    } else {
      const gap = (now - entry.lastTokenMs) / 1000 / count;
      for (let i = 0; i < count; i++) entry.tokenSeries.itl.observe(gap);
    }
    entry.lastTokenMs = now;
  }

  private cancelDownstream(requestId: string, reason: CancelRequest['reason']): void {
    const cancel: CancelRequest = { requestId, reason };
    this.service.bus.publish(subjects.requestCancel(), cancel);
  }

  private recordOutcome(span: Span, arrivalMs: number, reason: OutcomeReason, status: number, outputTokens: number): void {
    const outcome = outcomeOf(reason);
    this.metrics.terminal.inc({ outcome, reason });
    this.metrics.inFlight.dec();
    this.metrics.duration.observe({ outcome }, (Date.now() - arrivalMs) / 1000);
    span.setAttributes({
      'http.response.status_code': status,
      'sluice.outcome': outcome,
      'sluice.outcome.reason': reason,
      'gen_ai.usage.output_tokens': outputTokens,
    });
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
    span.end();
  }
}
